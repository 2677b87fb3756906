package kube

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// installLabels are the labels every alert keeps, so one install's alert never blends with
// another's: cluster (when the platform sets it), namespace and service.
var installLabels = []string{"cluster", "namespace", "service"}

// aggregation matches a PromQL aggregation with its by/without clause, which the rules write before
// the argument (a clause after it would read as no clause and fail the test, never pass it).
var aggregation = regexp.MustCompile(`\b(sum|max|min|avg|count|group|stddev|stdvar|topk|bottomk|quantile|count_values)\s*(by|without)?\s*(\(([^()]*)\))?\s*\(`)

// rule is one recording or alerting rule of a rules file.
type rule struct {
	Record string `json:"record"`
	Alert  string `json:"alert"`
	Expr   string `json:"expr"`
}

func readRules(t *testing.T, file string) []rule {
	t.Helper()
	raw, err := os.ReadFile(umbrella + "/rules/" + file)
	require.NoError(t, err)
	var doc struct {
		Groups []struct {
			Rules []rule `json:"rules"`
		} `json:"groups"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	var out []rule
	for _, g := range doc.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

// requireKept fails unless every aggregation of r is "by" a list holding each of labels, and
// returns how many aggregations it checked.
func requireKept(t *testing.T, r rule, labels ...string) int {
	t.Helper()
	found := aggregation.FindAllStringSubmatch(r.Expr, -1)
	for _, m := range found {
		require.Equal(t, "by", m[2], "%s%s: %q must aggregate by (%s, ...)", r.Record, r.Alert, strings.TrimSpace(m[0]), strings.Join(labels, ", "))
		kept := map[string]bool{}
		for _, l := range strings.Split(m[4], ",") {
			kept[strings.TrimSpace(l)] = true
		}
		for _, l := range labels {
			require.True(t, kept[l], "%s%s: %q does not keep %s", r.Record, r.Alert, strings.TrimSpace(m[0]), l)
		}
	}
	return len(found)
}

// Every aggregation in every alert keeps cluster, namespace and service (promtool's
// two-namespace test in testdata/alerts_test.yaml shows why).
func TestAlertsAggregatePerInstall(t *testing.T) {
	n := 0
	for _, r := range readRules(t, "alerts.yaml") {
		if r.Alert == "" || r.Alert == "BizassistMetricsAbsent" {
			continue // absent() of the whole selection has no labels to keep
		}
		checked := requireKept(t, r, installLabels...)
		require.NotZero(t, checked, "%s aggregates nothing: %s", r.Alert, r.Expr)
		n++
	}
	require.NotZero(t, n)
}

// The SLO rules (slos.yaml) keep cluster and namespace in every aggregation, so each install has
// its own SLIs, budgets and burn-rate alerts; the windows over them keep every label.
func TestSLORulesAggregatePerInstall(t *testing.T) {
	n := 0
	for _, r := range readRules(t, "slos.yaml") {
		n += requireKept(t, r, "cluster", "namespace")
	}
	require.NotZero(t, n)
}

// Every rule parses with Prometheus 3's PromQL parser (the module's pin): promtool and the fault
// suite's Prometheus are the distribution's 2.42 (tools/monitoring/install.sh), and a cluster's
// Prometheus is most likely 3.
func TestRulesParseWithPrometheus3(t *testing.T) {
	n := 0
	for _, file := range []string{"alerts.yaml", "slos.yaml"} {
		for _, r := range readRules(t, file) {
			_, err := parser.ParseExpr(r.Expr)
			require.NoError(t, err, "%s: %s%s", file, r.Record, r.Alert)
			n++
		}
	}
	require.NotZero(t, n)
}
