package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var env = map[string]string{"DEMO_GROWTH_EMAIL": "g@x.io", "DEMO_PASSWORD": "pw", "KEY": "k1"}

func TestParseDefaultsAndExpansion(t *testing.T) {
	list, err := Parse([]byte(`
# ${NOT_EXPANDED} in a comment is fine
scenarios:
  - name: verify
    method: post
    path: /api/auth
    headers: {X-Key: "${KEY}"}
    login: {email: "${DEMO_GROWTH_EMAIL}", password: "${DEMO_PASSWORD}"}
    body: {action: verify, tags: ["${KEY}"]}
  - name: raw
    path: /api/x
    body: 'not json ${KEY}'
    expect: 404
    concurrency: 2
    duration: 1s
`), env)
	require.NoError(t, err)
	require.Len(t, list, 2)

	v := list[0]
	require.Equal(t, "POST", v.Method)
	require.Equal(t, map[string]string{"X-Key": "k1"}, v.Headers)
	require.Equal(t, &Login{Email: "g@x.io", Password: "pw"}, v.Login)
	require.JSONEq(t, `{"action":"verify","tags":["k1"]}`, string(v.body))
	require.Equal(t, 200, v.Expect)
	require.Equal(t, 8, v.Concurrency)
	require.Equal(t, 10*time.Second, v.Duration)

	r := list[1]
	require.Equal(t, "GET", r.Method)
	require.Equal(t, "not json k1", string(r.body))
	require.Equal(t, 404, r.Expect)
	require.Equal(t, 2, r.Concurrency)
	require.Equal(t, time.Second, r.Duration)
}

func TestParseRejects(t *testing.T) {
	cases := map[string]string{
		"unknown variable": "scenarios: [{name: a, path: '/x/${NOPE}'}]",
		"unknown field":    "scenarios: [{name: a, path: /x, concurrancy: 3}]",
		"no name":          "scenarios: [{path: /x}]",
		"relative path":    "scenarios: [{name: a, path: x}]",
		"half a login":     "scenarios: [{name: a, path: /x, login: {email: a@b.c}}]",
		"a replica stopped past the run": "scenarios: [{name: a, method: POST, path: /x, duration: 10s, login: {email: a@b.c, password: p}, " +
			"webhook: {rate: 1, subscriptions: 1, stopRedisReplica: {stream: s, healthy: h, consumer: leads, after: 5s, for: 10s}}}]",
		"a replica stopped with no healthy stream to watch": "scenarios: [{name: a, method: POST, path: /x, duration: 30s, login: {email: a@b.c, password: p}, " +
			"webhook: {rate: 1, subscriptions: 1, stopRedisReplica: {stream: s, after: 5s, for: 10s}}}]",
	}
	for name, doc := range cases {
		_, err := Parse([]byte(doc), env)
		require.Error(t, err, name)
	}
}

func TestLoadDirRejectsDuplicateNames(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("scenarios: [{name: same, path: /a}]"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("scenarios: [{name: same, path: /b}]"), 0o600))
	_, err := LoadDir(dir, env)
	require.ErrorContains(t, err, `scenario "same" is also in`)
}

// The shipped scenario files (make bench's and make bench-scale's) parse against the keys make
// up writes.
func TestShippedScenariosParse(t *testing.T) {
	stackEnv := map[string]string{}
	for _, k := range []string{"DEMO_PASSWORD", "DEMO_FREE_EMAIL", "DEMO_GROWTH_EMAIL", "DEMO_FULL_STACK_EMAIL",
		"EXT_SECRET", "ADMIN_SECRET", "STRIPE_WEBHOOK_SECRET", "CONSOLE_BENCH_COOKIE", "DEMO_API_KEY"} {
		stackEnv[k] = "x"
	}
	for _, dir := range []string{"scenarios", "scale", "faults"} {
		list, err := LoadDir(dir, stackEnv)
		require.NoError(t, err, dir)
		require.NotEmpty(t, list, dir)
	}
}

func TestPercentileNearestRank(t *testing.T) {
	r := Result{}
	require.Zero(t, r.Percentile(50))
	for i := 1; i <= 100; i++ {
		r.Latencies = append(r.Latencies, time.Duration(i)*time.Millisecond)
	}
	require.Equal(t, 50*time.Millisecond, r.Percentile(50))
	require.Equal(t, 99*time.Millisecond, r.Percentile(99))
	require.Equal(t, 100*time.Millisecond, r.Percentile(100))
}

func TestRunCountsErrorsAndStopsAtMaxRequests(t *testing.T) {
	var hits, logins atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/auth":
			logins.Add(1)
			_, _ = w.Write([]byte(`{"ok":true,"token":"tok"}`))
		default:
			if r.Header.Get("Authorization") != "Bearer tok" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			if hits.Add(1)%2 == 0 {
				w.WriteHeader(http.StatusTeapot)
			}
		}
	}))
	defer srv.Close()

	sc := Scenario{Name: "t", Path: "/x", Login: &Login{Email: "a", Password: "b"}, Duration: time.Minute}
	require.NoError(t, sc.normalize())
	sc.Concurrency = 3
	tokens := &Logins{}
	meter := selfMeter(t)
	res, err := Run(context.Background(), srv.Client(), srv.URL, sc, 40, tokens, meter)
	require.NoError(t, err)
	require.Equal(t, 40, res.Requests)
	require.Equal(t, 20, res.Errors)
	require.Len(t, res.Latencies, 20)
	require.Contains(t, res.FirstError, "status 418, want 200")
	require.Positive(t, res.RPS())

	// A second scenario with the same account reuses the token.
	_, err = Run(context.Background(), srv.Client(), srv.URL, sc, 2, tokens, meter)
	require.NoError(t, err)
	require.Equal(t, int64(1), logins.Load())
}

func TestAQuietAccountIsExpandedAndChecked(t *testing.T) {
	e := map[string]string{"DEMO_GROWTH_EMAIL": "g@x.io", "DEMO_FULL_STACK_EMAIL": "f@x.io", "DEMO_PASSWORD": "pw"}
	list, err := Parse([]byte(`
scenarios:
  - name: fair
    method: POST
    path: /api/ext-webhook
    login: {email: "${DEMO_GROWTH_EMAIL}", password: "${DEMO_PASSWORD}"}
    webhook:
      rate: 10
      subscriptions: 100
      quiet: {login: {email: "${DEMO_FULL_STACK_EMAIL}", password: "${DEMO_PASSWORD}"}, rate: 10, subscriptions: 1}
`), e)
	require.NoError(t, err)
	require.Equal(t, Login{Email: "f@x.io", Password: "pw"}, list[0].Webhook.Quiet.Login)
	_, err = Parse([]byte(`
scenarios:
  - name: fair
    method: POST
    path: /api/ext-webhook
    login: {email: "${DEMO_GROWTH_EMAIL}", password: "${DEMO_PASSWORD}"}
    webhook: {rate: 10, subscriptions: 1, quiet: {rate: 10, subscriptions: 1}}
`), e)
	require.ErrorContains(t, err, "quiet needs a login")
}
