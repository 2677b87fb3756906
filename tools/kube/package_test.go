package kube

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChartsPackageIsAnInstallableRepository runs `make charts-package` into a directory served
// over HTTP and renders the umbrella chart from it the way charts/README.md installs it (one
// helm command with --repo, no dependency builds): the result must be the chart directory's own
// render, so the packages carry every dependency and template.
func TestChartsPackageIsAnInstallableRepository(t *testing.T) {
	dist := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
	t.Cleanup(srv.Close)

	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cmd := exec.Command("make", "--no-print-directory", "-C", root, "charts-package",
		"CHARTS_DIST="+dist, "CHARTS_REPO_URL="+srv.URL)
	cmd.Env = append(os.Environ(), "GOWORK=") // the Makefile lists the go.work modules
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	for _, c := range append(append([]string{"bizassist-lib", "bizassist"}, services...), "index.yaml") {
		name := c + "-0.1.0.tgz"
		if c == "index.yaml" {
			name = c
		}
		require.FileExists(t, filepath.Join(dist, name))
	}
	index, err := os.ReadFile(filepath.Join(dist, "index.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(index), srv.URL+"/bizassist-0.1.0.tgz")

	fromRepo, err := helm("template", release, "bizassist", "--repo", srv.URL, "--namespace", release)
	require.NoError(t, err, fromRepo)
	require.Equal(t, render(t, matrix[0]), fromRepo)
	require.True(t, strings.Contains(fromRepo, "kind: Deployment"))
}
