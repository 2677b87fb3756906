package ratelimit_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
)

// switchProxy forwards TCP to target while up; while down it drops every connection, which is
// what a client sees when Redis restarts or the network between them breaks.
type switchProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	up     bool
	conns  map[net.Conn]struct{}
}

func startProxy(t *testing.T, target string) *switchProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &switchProxy{ln: ln, target: target, up: true, conns: map[net.Conn]struct{}{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		p.setUp(false)
	})
	return p
}

func (p *switchProxy) pipe(client net.Conn) {
	if !p.track(client) {
		_ = client.Close()
		return
	}
	upstream, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(upstream) {
		_ = client.Close()
		if upstream != nil {
			_ = upstream.Close()
		}
		return
	}
	go func() {
		_, _ = io.Copy(upstream, client)
		_ = upstream.Close()
	}()
	_, _ = io.Copy(client, upstream)
	_ = client.Close()
}

func (p *switchProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.up {
		p.conns[c] = struct{}{}
	}
	return p.up
}

func (p *switchProxy) setUp(up bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = up
	if !up {
		for c := range p.conns {
			_ = c.Close()
		}
		clear(p.conns)
	}
}

// behindProxy returns a client of the test Redis through a switchProxy, and a key prefix of the
// test's own. The client tries once: one failed attempt is enough to show the switch.
func behindProxy(t *testing.T) (*redis.Client, *switchProxy, string) {
	t.Helper()
	_, prefix := redistest.New(t)
	opts, err := redis.ParseURL(redistest.URL())
	require.NoError(t, err)
	proxy := startProxy(t, opts.Addr)
	opts.Addr = proxy.ln.Addr().String()
	opts.MaxRetries = -1
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb, proxy, prefix
}

func TestFallbackEndsWhenRedisComesBack(t *testing.T) {
	t.Parallel()
	rdb, proxy, prefix := behindProxy(t)

	var logs bytes.Buffer
	cfg := redisConfig(prefix)
	cfg.ProbeInterval = 50 * time.Millisecond
	l, reg := newLimiter(t, rdb, cfg, ratelimit.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	p := ratelimit.Policy{Name: "recover", Rate: 60, Period: time.Hour}
	remaining := func() int {
		t.Helper()
		res, err := l.Allow(context.Background(), p, "192.0.2.1")
		require.NoError(t, err)
		require.True(t, res.Allowed)
		return res.Remaining
	}
	metricsAre := func(active, errors int) {
		t.Helper()
		require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(fallbackMetrics(active, errors)),
			"bizassist_ratelimit_fallback_active", "bizassist_ratelimit_backend_errors_total"))
	}

	require.Equal(t, 59, remaining(), "first request, decided in Redis")
	metricsAre(0, 0)

	proxy.setUp(false)
	require.Equal(t, 58, remaining(), "Redis is gone: the process's own bucket, which saw the first request, answers")
	metricsAre(1, 1)

	proxy.setUp(true)
	// No request comes: the background probe alone ends the fallback (it used to wait for a
	// request, so a quiet service stayed on per-process limits after Redis was back).
	require.Eventually(t, func() bool { return fallbackActive(t, reg) == 0 }, 2*time.Second, 10*time.Millisecond,
		"the probe to find Redis back")
	metricsAre(0, 1)
	require.Equal(t, 57, remaining(), "Redis is back: the shared bucket, charged for the request allowed meanwhile, decides again")

	require.Equal(t, 1, strings.Count(logs.String(), "level=WARN"), logs.String())
	require.Equal(t, 1, strings.Count(logs.String(), "level=INFO"), logs.String())
}

// TestAFlappingRedisGrantsNoSecondBudget is test-scale's failover finding: a Redis answering
// one call and failing the next (slow under load, a failover in progress) flipped the breaker
// back and forth, and the shared and the in-process buckets each granted a full budget, so 40
// requests over a limit of 30 all passed. Each side now counts the other's decisions.
func TestAFlappingRedisGrantsNoSecondBudget(t *testing.T) {
	t.Parallel()
	rdb, proxy, prefix := behindProxy(t)
	cfg := redisConfig(prefix)
	cfg.ProbeInterval = 10 * time.Millisecond
	l, reg := newLimiter(t, rdb, cfg, ratelimit.WithLogger(slog.New(slog.DiscardHandler)))
	p := ratelimit.Policy{Name: "flap", Rate: 30, Period: time.Hour}

	allowed := 0
	for i := range 40 {
		proxy.setUp(i%2 == 0) // even requests are decided in Redis, odd ones in the process
		if i%2 == 0 {
			require.Eventually(t, func() bool { return fallbackActive(t, reg) == 0 }, 2*time.Second, 5*time.Millisecond,
				"the probe to find Redis back before request %d", i)
		}
		res, err := l.Allow(context.Background(), p, "192.0.2.1")
		require.NoError(t, err)
		if res.Allowed {
			allowed++
		}
	}
	require.Equal(t, 30, allowed, "the policy's 30, however the decisions were split")
}

// TestFallbackSharesTheRateAmongReplicas: while Redis is away each of N processes allows 1/N of
// the rate, so N processes deciding alone together stay within the policy.
func TestFallbackSharesTheRateAmongReplicas(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // nothing listens there
	t.Cleanup(func() { _ = rdb.Close() })
	p := ratelimit.Policy{Name: "shared", Rate: 30, Period: time.Hour}
	allowed := 0
	for range 2 {
		l, _ := newLimiter(t, rdb, ratelimit.Config{ProbeInterval: time.Hour, FallbackReplicas: 2},
			ratelimit.WithLogger(slog.New(slog.DiscardHandler)))
		for range 40 {
			res, err := l.Allow(context.Background(), p, "192.0.2.1")
			require.NoError(t, err)
			if res.Allowed {
				allowed++
			}
		}
	}
	require.Equal(t, 30, allowed, "two replicas, 15 each")
}

// fallbackActive reads bizassist_ratelimit_fallback_active from reg.
func fallbackActive(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == "bizassist_ratelimit_fallback_active" {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatal("bizassist_ratelimit_fallback_active is not registered")
	return 0
}

// TestOpenBreakerSparesRequestsTheRedisTimeout: once one call has timed out, no request waits for
// Redis again while it is down, however long the outage (one used to per probe interval).
func TestOpenBreakerSparesRequestsTheRedisTimeout(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Blackhole(t), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	const timeout = 100 * time.Millisecond
	l, reg := newLimiter(t, rdb, ratelimit.Config{Timeout: timeout, ProbeInterval: 20 * time.Millisecond},
		ratelimit.WithLogger(slog.New(slog.DiscardHandler)))
	p := ratelimit.Policy{Name: "breaker", Rate: 1000, Period: time.Minute}
	allow := func() time.Duration {
		t.Helper()
		start := time.Now()
		res, err := l.Allow(context.Background(), p, "192.0.2.1")
		require.NoError(t, err)
		require.True(t, res.Allowed)
		return time.Since(start)
	}
	require.GreaterOrEqual(t, allow(), timeout, "the first call finds Redis hanging")
	for i := range 10 {
		time.Sleep(30 * time.Millisecond) // past a probe interval each time: the limiter reads the real clock, there is no event to wait on
		require.Less(t, allow(), timeout/2, "call %d was decided without waiting for Redis", i)
	}
	require.Equal(t, 1.0, fallbackActive(t, reg), "the probes, not the requests, find Redis still down")
}

func BenchmarkAllow(b *testing.B) {
	rdb, prefix := redistest.New(b)
	l, reg := newLimiter(b, rdb, redisConfig(prefix))
	benchmarkAllow(b, l)
	require.NoError(b, testutil.GatherAndCompare(reg, strings.NewReader(fallbackMetrics(0, 0)),
		"bizassist_ratelimit_fallback_active", "bizassist_ratelimit_backend_errors_total"),
		"every decision was made in Redis")
}

// BenchmarkAllowInFallback measures the in-process path taken while Redis is down.
func BenchmarkAllowInFallback(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	b.Cleanup(func() { _ = rdb.Close() })
	l, _ := newLimiter(b, rdb, ratelimit.Config{ProbeInterval: time.Hour}, ratelimit.WithLogger(slog.New(slog.DiscardHandler)))
	benchmarkAllow(b, l)
}

func benchmarkAllow(b *testing.B, l *ratelimit.Limiter) {
	p := ratelimit.Policy{Name: "bench", Rate: 1_000_000, Period: time.Second}
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = netipFor(i)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			if _, err := l.Allow(ctx, p, keys[i%len(keys)]); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func netipFor(i int) string {
	return net.IPv4(10, 0, byte(i>>8), byte(i)).String()
}
