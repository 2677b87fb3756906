package kube

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"
)

// grafanaVars stands in for the dashboard variables Grafana substitutes before querying.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$service", ".*")

// TestDashboardQueriesParse parses every panel query of the shipped dashboards with Prometheus'
// own PromQL parser, so a typo shows up here rather than as an error panel. (Which metrics they
// name is checked against the running services by tools/e2e/operations_test.go.)
func TestDashboardQueriesParse(t *testing.T) {
	files, err := filepath.Glob(umbrella + "/dashboards/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var dash struct {
			UID    string `json:"uid"`
			Panels []struct {
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
		}
		require.NoError(t, json.Unmarshal(raw, &dash), f)
		require.NotEmpty(t, dash.UID, "%s: a stable uid keeps links to the dashboard working", f)
		for _, p := range dash.Panels {
			require.NotEmpty(t, p.Targets, "%s: panel %q has no query", f, p.Title)
			for _, target := range p.Targets {
				_, err := parser.ParseExpr(grafanaVars.Replace(target.Expr))
				require.NoError(t, err, "%s: panel %q: %s", f, p.Title, target.Expr)
			}
		}
	}
}
