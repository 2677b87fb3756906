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
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m")

// installVars are the variables that narrow every dashboard to one install (namespace), some
// services (job) and some pods: each dashboard has them and every series selector uses them, so
// two installs scraped by one Prometheus never blend. (grafana/dashboard-linter, make
// test-dashboards, checks job; it knows nothing of namespace and pod.)
var installVars = []string{"namespace", "job", "pod"}

// recordedConstants are recorded series that are the same in every install (each SLO's
// objective), so no install variable narrows them.
var recordedConstants = map[string]bool{"bizassist:slo_objective:ratio": true}

// TestDashboardQueriesParse parses every panel query of the shipped dashboards with Prometheus'
// own PromQL parser, so a typo shows up here rather than as an error panel, and checks that
// every series selector is narrowed by the install variables. (Which metrics they
// name is checked against the running services by tools/e2e/operations_test.go.)
func TestDashboardQueriesParse(t *testing.T) {
	files, err := filepath.Glob(umbrella + "/dashboards/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var dash struct {
			UID        string `json:"uid"`
			Templating struct {
				List []struct {
					Name string `json:"name"`
				} `json:"list"`
			} `json:"templating"`
			Panels []struct {
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
		}
		require.NoError(t, json.Unmarshal(raw, &dash), f)
		require.NotEmpty(t, dash.UID, "%s: a stable uid keeps links to the dashboard working", f)
		vars := map[string]bool{}
		for _, v := range dash.Templating.List {
			vars[v.Name] = true
		}
		for _, name := range installVars {
			require.True(t, vars[name], "%s: no %q variable", f, name)
		}
		for _, p := range dash.Panels {
			require.NotEmpty(t, p.Targets, "%s: panel %q has no query", f, p.Title)
			for _, target := range p.Targets {
				expr, err := parser.ParseExpr(grafanaVars.Replace(target.Expr))
				require.NoError(t, err, "%s: panel %q: %s", f, p.Title, target.Expr)
				parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
					vs, ok := node.(*parser.VectorSelector)
					if !ok {
						return nil
					}
					narrowing := installVars
					switch {
					case recordedConstants[vs.Name]:
						narrowing = nil
					case strings.Contains(vs.Name, ":"):
						// A recorded series (slos.yaml) is already summed per install: it has
						// namespace but no job or pod to narrow by.
						narrowing = installVars[:1]
					}
					for _, name := range narrowing {
						found := false
						for _, m := range vs.LabelMatchers {
							found = found || (m.Name == name && m.Value == "$"+name)
						}
						require.True(t, found, "%s: panel %q: %s is not narrowed by %s=~\"$%s\"", f, p.Title, vs, name, name)
					}
					return nil
				})
			}
		}
	}
}
