package ratelimit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
)

// newLimiter returns a limiter with its own registry on rdb. Tests against the real Redis get a
// generous timeout so a busy test machine does not push them into fallback.
func newLimiter(t testing.TB, rdb redis.UniversalClient, cfg ratelimit.Config, opts ...ratelimit.Option) (*ratelimit.Limiter, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	l, err := ratelimit.New(rdb, cfg, append([]ratelimit.Option{ratelimit.WithRegisterer(reg)}, opts...)...)
	require.NoError(t, err)
	return l, reg
}

func redisConfig(prefix string) ratelimit.Config {
	return ratelimit.Config{KeyPrefix: strings.TrimSuffix(prefix, ":"), Timeout: 5 * time.Second}
}

func serve(h http.Handler, remote string, header http.Header) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/api/thing", nil)
	r.RemoteAddr = remote
	for k, vs := range header {
		r.Header[k] = vs
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })

// onePerHour returns okHandler behind a policy of one request an hour, on a limiter against the
// real Redis whose config set adjusts (nil for the defaults).
func onePerHour(t *testing.T, set func(*ratelimit.Config)) (http.Handler, *prometheus.Registry) {
	t.Helper()
	rdb, prefix := redistest.New(t)
	cfg := redisConfig(prefix)
	if set != nil {
		set(&cfg)
	}
	l, reg := newLimiter(t, rdb, cfg)
	return l.Middleware(ratelimit.Policy{Name: "one", Rate: 1, Period: time.Hour})(okHandler), reg
}

func TestMiddlewareRefusesThe61stRequestInAMinute(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	l, reg := newLimiter(t, rdb, redisConfig(prefix))
	h := l.Middleware(ratelimit.API)(okHandler)

	// The bucket refills one request per second, so on a slow machine a few more than 60 may pass
	// before the refusal; the count is bounded by the time the loop took.
	start := time.Now()
	passed := 0
	w := serve(h, "192.0.2.10:40000", nil)
	for ; w.Code == http.StatusOK && passed < 120; w = serve(h, "192.0.2.10:40001", nil) {
		passed++
		require.Equal(t, "60", w.Header().Get("X-RateLimit-Limit"))
		require.Equal(t, "60;w=60", w.Header().Get("RateLimit-Policy"))
		require.Empty(t, w.Header().Get("Retry-After"))
		if passed == 1 {
			require.Equal(t, "59", w.Header().Get("X-RateLimit-Remaining"))
		}
	}
	require.GreaterOrEqual(t, passed, 60)
	require.LessOrEqual(t, passed, 60+int(time.Since(start).Seconds())+1)

	require.Equal(t, http.StatusTooManyRequests, w.Code)
	retry, err := strconv.Atoi(w.Header().Get("Retry-After"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, retry, 1)
	require.LessOrEqual(t, retry, 60)
	require.Equal(t, "60", w.Header().Get("X-RateLimit-Limit"))
	require.Equal(t, "0", w.Header().Get("X-RateLimit-Remaining"))
	reset, err := strconv.Atoi(w.Header().Get("X-RateLimit-Reset"))
	require.NoError(t, err)
	require.InDelta(t, 60, reset, 1, "seconds until the bucket is full, not an epoch")
	require.Equal(t, fmt.Sprintf("limit=60, remaining=0, reset=%d", reset), w.Header().Get("RateLimit"))

	var body map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
	require.Equal(t, false, body["ok"])
	require.Equal(t, "rate_limited", body["code"])
	require.Equal(t, fmt.Sprintf("rate limit exceeded: 60 requests per minute; retry in %d s", retry), body["error"])
	require.EqualValues(t, retry, body["retryAfter"])

	other := serve(h, "198.51.100.7:40000", nil)
	require.Equal(t, http.StatusOK, other.Code, "another IP has its own bucket")
	require.Equal(t, "59", other.Header().Get("X-RateLimit-Remaining"))

	require.Equal(t, float64(passed+1), decisions(t, reg, "api", "allowed"))
	require.Equal(t, 1.0, decisions(t, reg, "api", "limited"))
}

// decisions reads one series of the decisions counter from reg; a series never counted is 0.
func decisions(t *testing.T, reg *prometheus.Registry, policy, decision string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "bizassist_ratelimit_decisions_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if labels["policy"] == policy && labels["decision"] == decision {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func TestReplicasShareTheLimit(t *testing.T) {
	t.Parallel()
	rdbA, prefix := redistest.New(t)
	rdbB, _ := redistest.New(t) // a second connection pool, as another replica would have
	cfg := redisConfig(prefix)
	a, _ := newLimiter(t, rdbA, cfg)
	b, _ := newLimiter(t, rdbB, cfg)
	p := ratelimit.Policy{Name: "shared", Rate: 4, Period: time.Hour}
	ctx := context.Background()

	for i, l := range []*ratelimit.Limiter{a, b, a, b} {
		res, err := l.Allow(ctx, p, "203.0.113.5")
		require.NoError(t, err)
		require.True(t, res.Allowed, "request %d", i+1)
		require.Equal(t, 3-i, res.Remaining)
	}
	for _, l := range []*ratelimit.Limiter{a, b} {
		res, err := l.Allow(ctx, p, "203.0.113.5")
		require.NoError(t, err)
		require.False(t, res.Allowed, "the bucket drained by both replicas is empty for each")
		require.Greater(t, res.RetryAfter, time.Duration(0))
	}
}

func TestMiddlewareKeysByForwardedClientOnlyBehindTrustedProxies(t *testing.T) {
	t.Parallel()
	h, _ := onePerHour(t, func(c *ratelimit.Config) { c.TrustedProxies = []string{"10.0.0.0/8"} })
	fwd := func(ip string) http.Header { return http.Header{"X-Forwarded-For": {ip}} }

	require.Equal(t, http.StatusOK, serve(h, "10.0.0.2:1", fwd("203.0.113.1")).Code)
	require.Equal(t, http.StatusOK, serve(h, "10.0.0.2:1", fwd("203.0.113.2")).Code,
		"two clients behind the ingress have separate buckets")
	require.Equal(t, http.StatusTooManyRequests, serve(h, "10.0.0.3:1", fwd("6.6.6.6, 203.0.113.1")).Code,
		"a spoofed leftmost entry does not buy a fresh bucket")

	require.Equal(t, http.StatusOK, serve(h, "198.51.100.9:1", fwd("203.0.113.3")).Code)
	require.Equal(t, http.StatusTooManyRequests, serve(h, "198.51.100.9:1", fwd("203.0.113.4")).Code,
		"an untrusted peer is keyed by its own address whatever it forwards")
}

func TestExemptClientsBypassTheLimiter(t *testing.T) {
	t.Parallel()
	h, reg := onePerHour(t, func(c *ratelimit.Config) { c.ExemptCIDRs = []string{"192.0.2.0/24"} })

	for range 3 {
		w := serve(h, "192.0.2.50:1", nil)
		require.Equal(t, http.StatusOK, w.Code)
		require.Empty(t, w.Header().Get("X-RateLimit-Limit"), "exempt responses are not limited responses")
	}
	require.Equal(t, http.StatusOK, serve(h, "198.51.100.1:1", nil).Code)
	require.Equal(t, http.StatusTooManyRequests, serve(h, "198.51.100.1:1", nil).Code)
	require.Equal(t, 1.0, decisions(t, reg, "one", "allowed"), "exempt requests are not decisions")
}

func TestIPv6ClientsShareTheirSlash64(t *testing.T) {
	t.Parallel()
	h, _ := onePerHour(t, nil)

	require.Equal(t, http.StatusOK, serve(h, "[2001:db8:1:2::a]:1", nil).Code)
	require.Equal(t, http.StatusTooManyRequests, serve(h, "[2001:db8:1:2::b]:1", nil).Code)
	require.Equal(t, http.StatusOK, serve(h, "[2001:db8:1:3::a]:1", nil).Code)
}

func TestAllowReportsACanceledCaller(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	l, reg := newLimiter(t, rdb, redisConfig(prefix))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := l.Allow(ctx, ratelimit.API, "192.0.2.1")
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(fallbackMetrics(0, 0)),
		"bizassist_ratelimit_fallback_active", "bizassist_ratelimit_backend_errors_total"),
		"a caller that left is not a Redis failure")
}

func TestAllowRejectsAnInvalidPolicy(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	l, _ := newLimiter(t, rdb, redisConfig(prefix))
	_, err := l.Allow(context.Background(), ratelimit.Policy{Name: "zero"}, "k")
	require.Error(t, err)
	require.Panics(t, func() { l.Middleware(ratelimit.Policy{Name: "zero", Period: time.Minute}) })
}

func TestKeys(t *testing.T) {
	t.Parallel()
	require.Equal(t, "owner@example.com", ratelimit.EmailKey("  Owner@Example.COM "))
	require.Equal(t, "192.0.2.1", ratelimit.IPKey(netip.MustParseAddr("192.0.2.1")))
	require.Equal(t, "2001:db8:1:2::/64", ratelimit.IPKey(netip.MustParseAddr("2001:db8:1:2:3:4:5:6")))
}

// fallbackMetrics renders the two fallback series as GatherAndCompare expects them.
func fallbackMetrics(active, errors int) string {
	return fmt.Sprintf(`
# HELP bizassist_ratelimit_backend_errors_total Redis calls of the rate limiter that failed or timed out.
# TYPE bizassist_ratelimit_backend_errors_total counter
bizassist_ratelimit_backend_errors_total %d
# HELP bizassist_ratelimit_fallback_active 1 while the limiter decides in process memory because Redis is unreachable.
# TYPE bizassist_ratelimit_fallback_active gauge
bizassist_ratelimit_fallback_active %d
`, errors, active)
}

func TestRedisDownFallsBackToInProcessLimits(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // nothing listens there
	t.Cleanup(func() { _ = rdb.Close() })
	var logs bytes.Buffer
	l, reg := newLimiter(t, rdb, ratelimit.Config{ProbeInterval: time.Hour},
		ratelimit.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	h := l.Middleware(ratelimit.Policy{Name: "api", Rate: 60, Period: time.Hour})(okHandler)

	for i := 1; i <= 60; i++ {
		w := serve(h, "192.0.2.10:1", nil)
		require.Equal(t, http.StatusOK, w.Code, "request %d is answered although Redis is down", i)
		require.Equal(t, strconv.Itoa(60-i), w.Header().Get("X-RateLimit-Remaining"))
	}
	w := serve(h, "192.0.2.10:1", nil)
	require.Equal(t, http.StatusTooManyRequests, w.Code, "the in-process limiter still limits")
	require.NotEmpty(t, w.Header().Get("Retry-After"))
	require.Equal(t, http.StatusOK, serve(h, "198.51.100.7:1", nil).Code)

	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(fallbackMetrics(1, 1)),
		"bizassist_ratelimit_fallback_active", "bizassist_ratelimit_backend_errors_total"),
		"one failed call starts fallback; no further calls pay a Redis timeout before the next probe")
	require.Equal(t, 1, strings.Count(logs.String(), "level=WARN"), logs.String())
}

func TestRefusalRoundsRetryUpToWholeSeconds(t *testing.T) {
	t.Parallel()
	err := ratelimit.Refusal(ratelimit.Policy{Name: "login_email", Rate: 5, Period: time.Minute}, ratelimit.Result{Limit: 5, RetryAfter: 1500 * time.Millisecond})
	require.Equal(t, "rate limit exceeded: 5 requests per minute; retry in 2 s", err.Message)
	require.Equal(t, 2, err.Details["retryAfter"])

	w := httptest.NewRecorder()
	httpx.Fail(w, httptest.NewRequest(http.MethodPost, "/api/auth", nil),
		ratelimit.Refusal(ratelimit.Login, ratelimit.Result{Limit: 10, RetryAfter: time.Millisecond}))
	require.Equal(t, http.StatusTooManyRequests, w.Code)
	require.Equal(t, "1", w.Header().Get("Retry-After"), "never 0, which would invite an immediate retry")
}

func TestPeekLooksWithoutTaking(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	up, _ := newLimiter(t, rdb, redisConfig(prefix))
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // nothing listens there
	t.Cleanup(func() { _ = down.Close() })
	fallback, _ := newLimiter(t, down, ratelimit.Config{ProbeInterval: time.Hour})
	p := ratelimit.Policy{Name: "failures", Rate: 3, Period: time.Hour}

	for name, l := range map[string]*ratelimit.Limiter{"redis": up, "in process": fallback} {
		ctx := context.Background()
		for range 5 {
			res, err := l.Peek(ctx, p, "k")
			require.NoError(t, err, name)
			require.True(t, res.Allowed, name)
			require.Equal(t, 3, res.Remaining, "%s: peeking spends nothing", name)
		}
		for range 3 {
			res, err := l.Allow(ctx, p, "k")
			require.NoError(t, err)
			require.True(t, res.Allowed, name)
		}
		res, err := l.Peek(ctx, p, "k")
		require.NoError(t, err)
		require.False(t, res.Allowed, "%s: a spent bucket has no room", name)
		require.InDelta(t, 20*time.Minute, res.RetryAfter, float64(time.Minute), "%s: room again after one interval", name)
		other, err := l.Peek(ctx, p, "other")
		require.NoError(t, err)
		require.True(t, other.Allowed, name)
	}
}

// A policy with a burst above its rate admits the burst at once, then the rate, in Redis and in
// process alike (a CRM sync: many events at once, then a steady trickle).
func TestBurstAboveTheRate(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	up, _ := newLimiter(t, rdb, redisConfig(prefix))
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // nothing listens there
	t.Cleanup(func() { _ = down.Close() })
	fallback, _ := newLimiter(t, down, ratelimit.Config{ProbeInterval: time.Hour})
	p := ratelimit.Policy{Name: "bursty", Rate: 1, Period: time.Hour, Burst: 20}

	for name, l := range map[string]*ratelimit.Limiter{"redis": up, "in process": fallback} {
		ctx := context.Background()
		for i := range 20 {
			res, err := l.Allow(ctx, p, "k")
			require.NoError(t, err, name)
			require.True(t, res.Allowed, "%s: request %d of the burst", name, i+1)
			require.Equal(t, 19-i, res.Remaining, name)
		}
		res, err := l.Allow(ctx, p, "k")
		require.NoError(t, err, name)
		require.False(t, res.Allowed, "%s: the 21st waits for the rate", name)
		require.InDelta(t, time.Hour.Seconds(), res.RetryAfter.Seconds(), 1, name)
		peek, err := l.Peek(ctx, p, "k")
		require.NoError(t, err, name)
		require.False(t, peek.Allowed, name)
	}
}
