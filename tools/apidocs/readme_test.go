package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's table of services names every route of the merged reference, with its method, in
// the row of the service that serves it (the operation's tag).
func TestTheReadmeRouteTableListsEveryRoute(t *testing.T) {
	raw, err := os.ReadFile("../../libs/apidocs/openapi.json")
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]struct {
			Tags []string `json:"tags"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	rows := map[string]string{} // service -> its row
	for _, line := range strings.Split(string(readme), "\n") {
		if rest, ok := strings.CutPrefix(line, "| ["); ok {
			name, _, _ := strings.Cut(rest, "]")
			rows[name] = line
		}
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if len(op.Tags) == 0 {
				continue // parameters shared by the path's operations
			}
			row, ok := rows[op.Tags[0]]
			require.True(t, ok, "README.md has no row for the service %s", op.Tags[0])
			m := strings.ToUpper(method)
			listed := strings.Contains(row, "`"+m+" "+path+"`") ||
				strings.Contains(row, m+"/") && strings.Contains(row, " "+path+"`") || strings.Contains(row, "/"+m+" "+path+"`")
			require.True(t, listed, "README.md's %s row does not list %s %s", op.Tags[0], m, path)
		}
	}
}
