package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// Operations: the Grafana dashboards and alert rules shipped in charts/bizassist query only
// metrics that the running services export. Source addresses: 127.0.6.x.

const (
	dashboardsDir = "../../charts/bizassist/dashboards"
	alertRules    = "../../charts/bizassist/rules/alerts.yaml"
	sloRules      = "../../charts/bizassist/rules/slos.yaml"
)

// Each service's own HTTP port in the local stack (docs/conventions.md), where /metrics is.
var metricsPorts = map[string]int{"identity": 8081, "leads": 8082, "assistant": 8083, "analytics": 8084, "integrations": 8085}

// Every series the dashboards and rules query is named bizassist_*; PromQL functions and labels
// never are.
var metricName = regexp.MustCompile(`\bbizassist_[a-zA-Z0-9_:]+`)

// queriedMetrics maps each metric name the dashboards and rule files use to where it is used.
// Recording rules' names (bizassist:...) are not exported names and do not match metricName.
func queriedMetrics(dashboards string, ruleFiles ...string) (map[string][]string, error) {
	used := map[string][]string{}
	note := func(where, query string) {
		for _, m := range metricName.FindAllString(query, -1) {
			used[m] = append(used[m], where)
		}
	}
	files, err := filepath.Glob(filepath.Join(dashboards, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no dashboards in %s", dashboards)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var dash struct {
			Panels []struct {
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
			Templating struct {
				List []struct {
					Name       string `json:"name"`
					Definition string `json:"definition"`
				} `json:"list"`
			} `json:"templating"`
		}
		if err := json.Unmarshal(raw, &dash); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, p := range dash.Panels {
			for _, t := range p.Targets {
				note(fmt.Sprintf("%s panel %q", filepath.Base(f), p.Title), t.Expr)
			}
		}
		for _, v := range dash.Templating.List {
			note(fmt.Sprintf("%s variable %q", filepath.Base(f), v.Name), v.Definition)
		}
	}
	for _, rules := range ruleFiles {
		raw, err := os.ReadFile(rules)
		if err != nil {
			return nil, err
		}
		var rf struct {
			Groups []struct {
				Rules []struct {
					Alert  string `yaml:"alert"`
					Record string `yaml:"record"`
					Expr   string `yaml:"expr"`
				} `yaml:"rules"`
			} `yaml:"groups"`
		}
		if err := yaml.Unmarshal(raw, &rf); err != nil {
			return nil, fmt.Errorf("%s: %w", rules, err)
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Alert != "" {
					note("alert "+r.Alert, r.Expr)
				} else {
					note("recording rule "+r.Record, r.Expr)
				}
			}
		}
	}
	return used, nil
}

// exportedSeries reads the metric names a Prometheus text exposition offers, with the series
// names a histogram or summary family stands for.
func exportedSeries(r io.Reader, into map[string]bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[0] != "#" || f[1] != "TYPE" {
			continue
		}
		name := f[2]
		into[name] = true
		switch f[3] {
		case "histogram":
			into[name+"_bucket"], into[name+"_sum"], into[name+"_count"] = true, true, true
		case "summary":
			into[name+"_sum"], into[name+"_count"] = true, true
		}
	}
	return sc.Err()
}

// unexported lists, sorted, each queried metric nothing exports, with where it is used.
func unexported(used map[string][]string, exported map[string]bool) []string {
	var out []string
	for m, where := range used {
		if !exported[m] {
			out = append(out, fmt.Sprintf("%s (used by %s)", m, strings.Join(where, "; ")))
		}
	}
	sort.Strings(out)
	return out
}

// TestOperationsDashboardsUseExportedMetrics drives a little traffic through the ingress so that
// the labelled families exist (a counter vector with no observation is not exported at all: the
// HTTP metrics appear with a request, the event counters once an event is relayed and consumed,
// the webhook counters once a delivery is attempted), then scrapes every service until each
// queried metric is exported or the deadline passes. Gauges sampled by workers (queue depth,
// clients per tier) are exported from the start.
func TestOperationsDashboardsUseExportedMetrics(t *testing.T) {
	s := UseStack(t)
	used, err := queriedMetrics(dashboardsDir, alertRules, sloRules)
	require.NoError(t, err)

	c := s.Client(t, "127.0.6.1")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))
	c.Do(t, http.MethodPost, "/api/auth", tok, map[string]any{"action": "verify"}).Expect(t, http.StatusOK)
	c.Do(t, http.MethodGet, "/api/scout-stats", tok, nil).Expect(t, http.StatusOK)
	c.Do(t, http.MethodGet, "/api/agent-brain-public-feed", "", nil).Expect(t, http.StatusOK)
	c.Do(t, http.MethodGet, "/api/ext-webhook/sample", "", nil).Expect(t, http.StatusOK)
	// usage.recorded: analytics' outbox relays it and the assistant consumes it.
	c.Do(t, http.MethodPost, "/api/log-usage", tok, map[string]any{"feature": "chat", "action": "operations_e2e"}).Expect(t, http.StatusOK)
	// A webhook delivery: an inbound lead of the growth account, forwarded to its subscriber on
	// loopback.
	growth := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	rc := newHookReceiver(t, s)
	sub := c.Do(t, http.MethodPost, "/api/ext-webhook/subscribe", growth,
		map[string]string{"hookUrl": rc.srv.URL + "/operations", "event": "new_lead"}).Expect(t, http.StatusCreated)
	hookID, _ := sub.JSON["id"].(string)
	t.Cleanup(func() {
		s.Client(t, "127.0.6.2").Do(t, http.MethodDelete, "/api/ext-webhook/subscriptions/"+hookID, growth, nil).Expect(t, http.StatusOK)
	})
	rc.trust(t, sub.JSON["secret"].(string))
	c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]string{"event": "new_lead", "name": "Olive Operations",
		"email": uniqueEmail(t), "source": "e2e"}, extSecret(s.Get(t, "EXT_SECRET"))).Expect(t, http.StatusOK)

	hc := &http.Client{Timeout: 5 * time.Second}
	var missing []string
	if within(30*time.Second, time.Second, func() bool {
		var exported map[string]bool
		if exported, err = scrapeAll(hc, s); err != nil {
			return false
		}
		missing = unexported(used, exported)
		return len(missing) == 0
	}) {
		return
	}
	require.NoError(t, err)
	t.Fatalf("queried by the dashboards or alerts but exported by no service:\n%s", strings.Join(missing, "\n"))
}

// scrapeAll reads every service replica's /metrics.
func scrapeAll(hc *http.Client, s *Stack) (map[string]bool, error) {
	urls, err := s.metricsURLs(metricsPorts)
	if err != nil {
		return nil, err
	}
	exported := map[string]bool{}
	for replica, url := range urls {
		if err := scrape(hc, url, exported); err != nil {
			return nil, fmt.Errorf("%s: %w", replica, err)
		}
	}
	return exported, nil
}

func scrape(hc *http.Client, url string, into map[string]bool) error {
	resp, err := hc.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return exportedSeries(resp.Body, into)
}

// TestOperationsCheckerFindsAMetricNobodyExports shows the check above can fail: a panel that
// names a metric missing from the scrape is reported with its place; a histogram's _bucket
// series counts as exported.
func TestOperationsCheckerFindsAMetricNobodyExports(t *testing.T) {
	dir := t.TempDir()
	dash := `{"panels":[
	  {"title":"latency","targets":[{"expr":"histogram_quantile(0.99, sum by (le) (rate(bizassist_http_request_duration_seconds_bucket[5m])))"}]},
	  {"title":"ghost","targets":[{"expr":"sum(rate(bizassist_ghost_total[5m]))"}]}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.json"), []byte(dash), 0o644))
	rules := "groups:\n  - name: g\n    rules:\n      - alert: Fallback\n        expr: bizassist_ratelimit_fallback_active > 0\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rules.yaml"), []byte(rules), 0o644))

	used, err := queriedMetrics(dir, filepath.Join(dir, "rules.yaml"))
	require.NoError(t, err)
	exported := map[string]bool{}
	scrape := `# HELP bizassist_http_request_duration_seconds Time.
# TYPE bizassist_http_request_duration_seconds histogram
bizassist_http_request_duration_seconds_bucket{le="+Inf"} 1
# HELP bizassist_ratelimit_fallback_active 1 while in fallback.
# TYPE bizassist_ratelimit_fallback_active gauge
bizassist_ratelimit_fallback_active 0
`
	require.NoError(t, exportedSeries(strings.NewReader(scrape), exported))
	require.Equal(t, []string{`bizassist_ghost_total (used by d.json panel "ghost")`}, unexported(used, exported))

	// The real dashboards and rules parse, and they name metrics.
	shipped, err := queriedMetrics(dashboardsDir, alertRules, sloRules)
	require.NoError(t, err)
	require.Contains(t, shipped, "bizassist_http_requests_total")
	require.Contains(t, shipped, "bizassist_webhook_deliveries_total") // from slos.yaml
	for m := range shipped {
		require.NotContains(t, m, ":", "a recording rule's name taken for an exported metric")
	}
}
