package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const chartsDir = "../../charts"

// TestReadmesAreGenerated fails when a chart's README.md is not what tools/chartdocs writes from
// the chart's values.yaml, schema and Chart.yaml: a value added, removed or re-documented
// without regenerating the README.
func TestReadmesAreGenerated(t *testing.T) {
	for _, c := range Charts {
		want, err := Render(filepath.Join(chartsDir, c))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(chartsDir, c, "README.md"))
		require.NoError(t, err, "no README: go run ./tools/chartdocs")
		require.Equal(t, want, string(got), "charts/%s/README.md is stale: go run ./tools/chartdocs (from the repository root)", c)
	}
}

func TestRowsTakeCommentsSchemaAndDefaults(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "values.yaml"), []byte(`# file header

# How many.
replicas: 2
image:
  tag: ""  # default: appVersion
list: [a, b]
peers: {A_URL: a}
`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "values.schema.json"), []byte(
		`{"properties": {"replicas": {"type": "integer", "description": "Pods."}, "image": {"description": "Image.", "properties": {"tag": {"type": "string"}}}}}`), 0o600))
	rows, err := Rows(filepath.Join(dir, "values.yaml"), filepath.Join(dir, "values.schema.json"))
	require.NoError(t, err)
	require.Equal(t, []Row{
		{Key: "replicas", Type: "integer", Default: "`2`", Description: "How many."},
		{Key: "image", Type: "object", Description: "Image."},
		{Key: "image.tag", Type: "string", Default: "`\"\"`", Description: "default: appVersion"},
		{Key: "list", Type: "array", Default: "`[a, b]`"},
		{Key: "peers", Type: "object", Default: "`{A_URL: a}`"},
	}, rows)
}
