package kube

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// installLabels are the labels every alert keeps, so one install's alert never blends with
// another's: cluster (when the platform sets it), namespace and service.
var installLabels = []string{"cluster", "namespace", "service"}

// aggregation matches a PromQL aggregation with its by/without clause, which the rules write before
// the argument (a clause after it would read as no clause and fail the test, never pass it).
var aggregation = regexp.MustCompile(`\b(sum|max|min|avg|count|group|stddev|stdvar|topk|bottomk|quantile|count_values)\s*(by|without)?\s*(\(([^()]*)\))?\s*\(`)

// Every aggregation in every alert keeps cluster, namespace and service (promtool's
// two-namespace test in testdata/alerts_test.yaml shows why).
func TestAlertsAggregatePerInstall(t *testing.T) {
	raw, err := os.ReadFile(umbrella + "/rules/alerts.yaml")
	require.NoError(t, err)
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `json:"alert"`
				Expr  string `json:"expr"`
			} `json:"rules"`
		} `json:"groups"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &rules))
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Alert == "BizassistMetricsAbsent" {
				continue // absent() of the whole selection has no labels to keep
			}
			n++
			found := aggregation.FindAllStringSubmatch(r.Expr, -1)
			require.NotEmpty(t, found, "%s aggregates nothing: %s", r.Alert, r.Expr)
			for _, m := range found {
				require.Equal(t, "by", m[2], "%s: %q must aggregate by (cluster, namespace, service, ...)", r.Alert, strings.TrimSpace(m[0]))
				labels := map[string]bool{}
				for _, l := range strings.Split(m[4], ",") {
					labels[strings.TrimSpace(l)] = true
				}
				for _, l := range installLabels {
					require.True(t, labels[l], "%s: %q does not keep %s", r.Alert, strings.TrimSpace(m[0]), l)
				}
			}
		}
	}
	require.NotZero(t, n)
}

// The SLO rules (slos.yaml) keep cluster and namespace in every aggregation, so each install has
// its own SLIs, budgets and burn-rate alerts; the windows over them keep every label.
func TestSLORulesAggregatePerInstall(t *testing.T) {
	raw, err := os.ReadFile(umbrella + "/rules/slos.yaml")
	require.NoError(t, err)
	var rules struct {
		Groups []struct {
			Rules []struct {
				Record string `json:"record"`
				Alert  string `json:"alert"`
				Expr   string `json:"expr"`
			} `json:"rules"`
		} `json:"groups"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &rules))
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			for _, m := range aggregation.FindAllStringSubmatch(r.Expr, -1) {
				n++
				require.Equal(t, "by", m[2], "%s%s: %q", r.Record, r.Alert, strings.TrimSpace(m[0]))
				labels := map[string]bool{}
				for _, l := range strings.Split(m[4], ",") {
					labels[strings.TrimSpace(l)] = true
				}
				require.True(t, labels["cluster"] && labels["namespace"], "%s%s: %q drops cluster or namespace", r.Record, r.Alert, strings.TrimSpace(m[0]))
			}
		}
	}
	require.NotZero(t, n)
}
