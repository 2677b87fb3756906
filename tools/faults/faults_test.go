package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/bizassist/bizassist/tools/internal/webhook"
)

func TestSelectFaults(t *testing.T) {
	all, err := selectFaults("")
	require.NoError(t, err)
	require.Len(t, all, len(faults))
	two, err := selectFaults("pg-restart, kill-9")
	require.NoError(t, err)
	require.Equal(t, []string{"postgres down 10s", "kill -9 integrations"}, []string{two[0].name, two[1].name})
	_, err = selectFaults("nope")
	require.ErrorContains(t, err, "redis-down")
	for _, f := range all {
		require.NotEqual(t, "overload", f.id, "the overload row runs only when named")
	}
	named, err := selectFaults("overload")
	require.NoError(t, err)
	require.Equal(t, "overload", named[0].id)
}

// The receiver's record is the suite's judge: one webhook-id per event, the same one before and
// after the receiver failed, and which acknowledged events never came.
func TestHooksJudgeDeliveries(t *testing.T) {
	h := newHooks()
	deliver := func(email, id string) int {
		return h.handle(webhook.Delivery{ID: id, Body: []byte(`{"email":"` + email + `"}`)})
	}
	require.Equal(t, 204, deliver("a@x", "id-a"))
	h.setFailing(true)
	require.Equal(t, 503, deliver("b@x", "id-b"))
	require.Equal(t, 503, deliver("c@x", "id-c"))
	h.setFailing(false)
	require.Equal(t, 204, deliver("b@x", "id-b"))
	require.Equal(t, 204, deliver("b@x", "id-b")) // a retry after a lost answer: same id, fine
	require.Equal(t, 204, deliver("c@x", "id-c2"))
	require.Equal(t, 204, deliver("a@x", "id-a2"))

	c := h.check([]string{"a@x", "b@x", "c@x", "d@x"})
	require.Equal(t, []string{"d@x"}, c.missing)
	require.Equal(t, []string{"a@x"}, c.twice)
	require.Equal(t, []string{"c@x"}, c.idChanged)
	require.Equal(t, 2, h.refusedCount([]string{"a@x", "b@x", "c@x"}))
	require.Equal(t, 400, h.handle(webhook.Delivery{Body: []byte(`{}`)}))
}

func TestTableAndTally(t *testing.T) {
	tl := newTally()
	now := time.Now()
	tl.record(outcome{status: "200", at: now}, "a@x")
	tl.record(outcome{status: "503", at: now.Add(time.Second)}, "")
	tl.record(outcome{status: "503", at: now}, "")
	tl.record(outcome{status: "conn", at: now}, "")
	require.Equal(t, []string{"a@x"}, tl.acked)
	require.Equal(t, now.Add(time.Second), tl.lastFailure)
	require.Equal(t, "503×2 conn×1", errorsText(tl.errors))
	require.Equal(t, "none", errorsText(nil))
	require.Equal(t, "503", statusOf(errors.New("GET /api/x: status 503: {}")))
	require.Equal(t, "conn", statusOf(errors.New("dial tcp: connection refused")))

	var out bytes.Buffer
	bad := result{fault: "pg", acked: 3, lost: 1, errors: tl.errors, recovery: 1234 * time.Millisecond}
	bad.fail("1 acknowledged event not delivered")
	printTable(&out, []result{{fault: "dup", acked: 1, recovery: -1}, bad, {fault: "panels", recovery: -1, summary: "3 panel queries"}}, newMonitor())
	require.Equal(t, `fault   acknowledged  lost  errors by status  recovery  alerts           result
dup     1             0     none              -         none             ok
pg      3             1     503×2 conn×1      1.2s      none             FAILED
panels  0             0     none              -         3 panel queries  ok
  pg: 1 acknowledged event not delivered
`, out.String())
}

func TestAlertColumn(t *testing.T) {
	m := newMonitor()
	end := time.Now()
	r := result{
		want: []string{"BizassistTargetDown", "BizassistHighErrorRate", "BizassistRateLimitFallback"},
		end:  end,
		raised: []*episode{
			{name: "BizassistTargetDown", from: end.Add(-time.Minute), to: end.Add(5 * time.Second)},
			{name: "BizassistTargetDown", from: end.Add(-30 * time.Second), to: end.Add(9 * time.Second)},
			{name: "BizassistRateLimitFallback", from: end.Add(-time.Minute), firing: true},
			{name: "BizassistOutboxRelayFailing", from: end},
		},
	}
	require.Equal(t, "TargetDown pending, resolved +9s; HighErrorRate not raised; RateLimitFallback firing, unresolved; also OutboxRelayFailing", r.alertText(m))

	// What Alertmanager's webhook sends (the fields read; it sends more).
	rec := httptest.NewRecorder()
	m.receive(rec, httptest.NewRequest(http.MethodPost, "/alerts", strings.NewReader(
		`{"version":"4","status":"firing","alerts":[{"status":"firing","labels":{"alertname":"BizassistRateLimitFallback","service":"leads"}}]}`)))
	require.Equal(t, http.StatusNoContent, rec.Code)
	require.True(t, m.wasNotified("BizassistRateLimitFallback", "firing"))
	require.False(t, m.wasNotified("BizassistRateLimitFallback", "resolved"))
	require.Contains(t, r.alertText(m), "RateLimitFallback firing, notified, unresolved")
}

// TestMonitorEpisodes polls a Prometheus alerts API that answers as the real one does while an
// alert goes pending, firing and away: one episode, firing, ended at the third poll.
func TestMonitorEpisodes(t *testing.T) {
	answers := []string{
		`[{"labels":{"alertname":"BizassistTargetDown","service":"leads","severity":"warning"},"state":"pending","activeAt":"2026-11-27T01:00:00Z","value":"1e+00"}]`,
		`[{"labels":{"alertname":"BizassistTargetDown","service":"leads","severity":"warning"},"state":"firing","activeAt":"2026-11-27T01:00:00Z","value":"1e+00"}]`,
		`[]`,
	}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/api/v1/alerts", r.URL.Path)
		_, _ = fmt.Fprintf(w, `{"status":"success","data":{"alerts":%s}}`, answers[min(n, len(answers)-1)])
		n++
	}))
	defer srv.Close()
	m := newMonitor()
	require.NoError(t, m.connect(srv.URL))
	for range answers {
		m.poll(context.Background())
		require.NoError(t, m.pollErr)
	}
	require.Len(t, m.all, 1)
	e := m.all[0]
	require.Equal(t, "BizassistTargetDown{service=leads}", e.String())
	require.True(t, e.firing)
	require.False(t, e.to.IsZero())
	require.Equal(t, time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC), e.from.UTC())
	require.Empty(t, m.active())
	require.Len(t, m.raisedBetween(e.from, e.from), 1)
}

func TestDashboardVariables(t *testing.T) {
	vars := map[string]string{"namespace": "bizassist", "job": "(bizassist-leads|bizassist-identity)", "__rate_interval": rateInterval}
	require.Equal(t,
		`sum(rate(x{namespace=~"bizassist", job=~"(bizassist-leads|bizassist-identity)", pod=~"$pod"}[1m]))`,
		substitute(`sum(rate(x{namespace=~"$namespace", job=~"${job}", pod=~"$pod"}[$__rate_interval]))`, vars))
	m := labelValuesRE.FindStringSubmatch(`label_values(bizassist_http_requests_total{namespace="$namespace"}, job)`)
	require.Equal(t, []string{`bizassist_http_requests_total{namespace="$namespace"}`, "job"}, m[1:])

	path := filepath.Join(t.TempDir(), "rules.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`groups:
  - name: a
    rules:
      - record: r:a
        expr: vector(1)
        labels: {slo: auth, sli: latency}
      - record: r:b
        expr: vector(1)
      - alert: A
        expr: vector(1)
`), 0o644))
	sels, err := recordingRules(path)
	require.NoError(t, err)
	require.Equal(t, []string{`r:a{sli="latency",slo="auth"}`, `r:b{}`}, sels)
}

// A CI run's fault suite could not start its PostgreSQL: the Kubernetes stage before it had
// left thousands of loopback connections in TIME_WAIT, and one held the private port.
func TestPrivatePortsAreOutsideTheEphemeralRange(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skipf("no ephemeral port range to check against: %v", err)
	}
	var low, high int
	if _, err := fmt.Sscan(string(b), &low, &high); err != nil {
		t.Fatalf("ip_local_port_range %q: %v", b, err)
	}
	for name, port := range map[string]int{"PostgreSQL": defaultPGPort, "Redis": defaultRedisPort} {
		if port >= low && port <= high {
			t.Errorf("the private %s's port %d is inside the ephemeral range %d-%d", name, port, low, high)
		}
	}
}

// An overloaded stack answers what it serves, or refuses in the API's envelope with Retry-After:
// every other answer is named as the problem it is.
func TestTheOverloadRowJudgesEachAnswer(t *testing.T) {
	envelope := []byte(`{"ok":false,"error":"the service is overloaded","code":"overloaded"}`)
	retry := http.Header{"Retry-After": {"1"}}
	check := overloadCheck(http.StatusOK)
	for _, tc := range []struct {
		name string
		res  vegeta.Result
		want string
	}{
		{"served", vegeta.Result{Code: 200}, ""},
		{"a 503 in the envelope with Retry-After", vegeta.Result{Code: 503, Body: envelope, Headers: retry}, ""},
		{"a 429 in the envelope with Retry-After", vegeta.Result{Code: 429, Body: envelope, Headers: retry}, ""},
		{"a 503 without Retry-After", vegeta.Result{Code: 503, Body: envelope, Headers: http.Header{}}, "503 without Retry-After"},
		{"nginx's HTML page", vegeta.Result{Code: 503, Body: []byte("<html>503</html>"), Headers: retry}, "503 without the error envelope"},
		{"an envelope that says ok", vegeta.Result{Code: 503, Body: []byte(`{"ok":true}`), Headers: retry}, "503 without the error envelope"},
		{"a 500", vegeta.Result{Code: 500, Body: envelope}, "status 500"},
		{"a 502", vegeta.Result{Code: 502, Body: envelope}, "status 502"},
		{"a reset connection", vegeta.Result{Error: "connection reset by peer"}, "transport error: connection reset by peer"},
	} {
		require.Equal(t, tc.want, check(&tc.res), tc.name)
	}
	o := newOverloadRun()
	o.record(&vegeta.Result{Code: 200}, 3*time.Millisecond, "")
	o.record(&vegeta.Result{Code: 503}, time.Millisecond, "")
	o.record(&vegeta.Result{Code: 500}, time.Millisecond, "status 500")
	require.Equal(t, []time.Duration{3 * time.Millisecond}, o.admitted, "only the served count in the latency")
	require.Equal(t, map[string]int{"503": 1}, o.refused)
	require.Equal(t, map[string]int{"status 500": 1}, o.bad)
}
