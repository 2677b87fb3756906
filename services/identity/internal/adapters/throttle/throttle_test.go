package throttle_test

import (
	"context"
	"fmt"
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

// make bench-scale signs in 100 accounts from the bench address, which RATELIMIT_EXEMPT_CIDRS
// exempts: the 11th sign-in was refused by the per-address attempts limit, which ignored the
// exemption. Another address is still held to it, and failures still count for the exempt one.
func TestExemptAddressIsSparedTheAttemptsLimitOnly(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	l, err := ratelimit.New(rdb, ratelimit.Config{ExemptCIDRs: []string{"127.0.0.9/32"}, KeyPrefix: prefix},
		ratelimit.WithRegisterer(prometheus.NewRegistry()), ratelimit.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	login := throttle.NewLogin(l, rdb, prefix, 0)
	ctx := context.Background()
	bench, other := netip.MustParseAddr("127.0.0.9"), netip.MustParseAddr("192.0.2.8")
	for i := range ratelimit.Login.Rate + 5 {
		require.NoError(t, login.Admit(ctx, bench, fmt.Sprintf("owner%d@example.com", i)), "sign-in %d from the exempt address", i)
	}
	for i := range ratelimit.Login.Rate {
		require.NoError(t, login.Admit(ctx, other, fmt.Sprintf("owner%d@example.com", i)))
	}
	require.Error(t, login.Admit(ctx, other, "late@example.com"), "another address is still limited")

	for range throttle.LoginFailures.Rate {
		require.NoError(t, login.Admit(ctx, bench, "victim@example.com"))
		require.NoError(t, login.Failed(ctx, bench, "victim@example.com"))
	}
	require.Error(t, login.Admit(ctx, bench, "victim@example.com"), "failures still count for the exempt address")
}
