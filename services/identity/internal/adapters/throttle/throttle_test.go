package throttle_test

import (
	"context"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
	"github.com/bizassist/bizassist/services/identity/internal/adapters/throttle"
)

// TestSignInDoesNotWaitForAHangingRedis: once the limiter has found Redis down, a sign-in's own
// Redis calls (the known-address lookup and record) are skipped too, instead of each waiting for
// the timeout; sign-ins took twice as long during a Redis outage.
func TestSignInDoesNotWaitForAHangingRedis(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Blackhole(t), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	l, err := ratelimit.New(rdb, ratelimit.Config{Timeout: timeout, ProbeInterval: time.Hour},
		ratelimit.WithRegisterer(prometheus.NewRegistry()), ratelimit.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	throttle := throttle.NewLogin(l, rdb, "rl", timeout)
	ip := netip.MustParseAddr("192.0.2.7")
	signIn := func() time.Duration {
		start := time.Now()
		require.NoError(t, throttle.Admit(context.Background(), ip, "owner@example.com"))
		require.NoError(t, throttle.Succeeded(context.Background(), ip, "owner@example.com"))
		return time.Since(start)
	}
	require.GreaterOrEqual(t, signIn(), timeout, "the first sign-in finds Redis hanging")
	for i := range 5 {
		require.Less(t, signIn(), timeout/2, "sign-in %d waited for Redis", i)
	}
}
