package ratelimit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMemoryLimiterIsGCRA(t *testing.T) {
	t.Parallel()
	m := newMemoryLimiter()
	p := Policy{Name: "t", Rate: 3, Period: 3 * time.Second} // one request per second, burst 3
	t0 := time.Unix(1_700_000_000, 0)

	for want := 2; want >= 0; want-- {
		res := m.allow(t0, p, "k")
		require.True(t, res.Allowed)
		require.Equal(t, want, res.Remaining)
		require.Equal(t, 3, res.Limit)
	}
	refused := m.allow(t0, p, "k")
	require.False(t, refused.Allowed)
	require.Equal(t, time.Second, refused.RetryAfter)
	require.Equal(t, 3*time.Second, refused.ResetAfter)

	require.True(t, m.allow(t0, p, "other").Allowed, "keys have separate buckets")
	require.True(t, m.allow(t0, Policy{Name: "u", Rate: 1, Period: time.Minute}, "k").Allowed,
		"policies have separate buckets")

	afterOne := m.allow(t0.Add(time.Second), p, "k")
	require.True(t, afterOne.Allowed, "one request has dripped back after one interval")
	require.Equal(t, 0, afterOne.Remaining)

	full := m.allow(t0.Add(time.Minute), p, "k")
	require.True(t, full.Allowed)
	require.Equal(t, 2, full.Remaining, "an idle bucket refills to the burst, not beyond")
}

func TestMemoryLimiterForgetsFullBuckets(t *testing.T) {
	t.Parallel()
	m := newMemoryLimiter()
	p := Policy{Name: "t", Rate: 10, Period: time.Second}
	t0 := time.Unix(1_700_000_000, 0)
	for _, k := range []string{"a", "b", "c"} {
		m.allow(t0, p, k)
	}
	require.Len(t, m.tat, 3)

	m.allow(t0.Add(sweepEvery), p, "d")
	require.Len(t, m.tat, 1, "keys whose buckets refilled are dropped on the next sweep")
}
