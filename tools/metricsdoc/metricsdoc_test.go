package metricsdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const root = "../.."

// Every metric the code registers is in docs/metrics.md with its type and labels, and every
// metric the table lists is registered by the code.
func TestMetricsTableMatchesTheCode(t *testing.T) {
	code, err := Scan(root, "libs", "services")
	require.NoError(t, err)
	require.NotEmpty(t, code)
	table, err := ReadTable(filepath.Join(root, "docs", "metrics.md"))
	require.NoError(t, err)
	for _, name := range Names(code) {
		c := code[name]
		d, ok := table[name]
		if !ok {
			t.Errorf("%s (%s, %s) is registered by %s but missing from docs/metrics.md", name, c.Type, strings.Join(c.Labels, ", "), c.Where)
			continue
		}
		require.Equal(t, c.Type, d.Type, "type of %s", name)
		require.Equal(t, c.Labels, d.Labels, "labels of %s (in the code's order)", name)
		require.True(t, strings.HasPrefix(c.Where, d.Where+"/"), "%s is defined in %s, the table says %s", name, c.Where, d.Where)
	}
	for _, name := range Names(table) {
		if _, ok := code[name]; !ok {
			t.Errorf("docs/metrics.md lists %s but nothing registers it", name)
		}
	}
}

const sample = `package x

import "github.com/prometheus/client_golang/prometheus"

var (
	a = promauto.NewCounterVec(prometheus.CounterOpts{Namespace: "ns", Name: "a_total", Help: "h"}, []string{"x", "y"})
	b = prometheus.NewGauge(prometheus.GaugeOpts{Name: "b", Help: "h"})
	c = promauto.With(reg).NewHistogram(prometheus.HistogramOpts{Name: "c_seconds", Help: "h"})
)
`

func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func TestScanFindsNameTypeAndLabels(t *testing.T) {
	dir := write(t, map[string]string{"libs/x/m.go": sample, "libs/x/m_test.go": strings.ReplaceAll(sample, `"b"`, `"only_in_tests"`)})
	got, err := Scan(dir, "libs")
	require.NoError(t, err)
	require.Equal(t, []string{"b", "c_seconds", "ns_a_total"}, Names(got))
	require.Equal(t, Metric{Name: "ns_a_total", Type: "counter", Labels: []string{"x", "y"}, Where: "libs/x/m.go"}, got["ns_a_total"])
	require.Equal(t, "gauge", got["b"].Type)
	require.Equal(t, "histogram", got["c_seconds"].Type)
}

// The scan refuses what it cannot read rather than missing a metric.
func TestScanRefusesMetricsItCannotSee(t *testing.T) {
	for name, src := range map[string]string{
		"name from a constant": `package x
import "github.com/prometheus/client_golang/prometheus"
const n = "a"
var a = prometheus.NewCounter(prometheus.CounterOpts{Name: n})`,
		"options in a variable": `package x
import "github.com/prometheus/client_golang/prometheus"
var opts = prometheus.CounterOpts{Name: "a"}
var a = prometheus.NewCounter(opts)`,
		"labels from a variable": `package x
import "github.com/prometheus/client_golang/prometheus"
var labels = []string{"x"}
var a = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a"}, labels)`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Scan(write(t, map[string]string{"libs/x/m.go": src}), "libs")
			require.Error(t, err)
		})
	}
}

func TestReadTable(t *testing.T) {
	dir := write(t, map[string]string{"m.md": "| Metric | Type | Labels | Meaning | Source |\n|---|---|---|---|---|\n" +
		"| `ns_a_total` | counter | `x`, `y` | Things. | `libs/x` |\n" +
		"| `b` | gauge | — | A level. | `libs/x` |\n"})
	got, err := ReadTable(filepath.Join(dir, "m.md"))
	require.NoError(t, err)
	require.Equal(t, Metric{Name: "ns_a_total", Type: "counter", Labels: []string{"x", "y"}, Where: "libs/x"}, got["ns_a_total"])
	require.Nil(t, got["b"].Labels)
}
