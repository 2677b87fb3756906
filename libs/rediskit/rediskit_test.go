package rediskit_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/rediskit"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
)

func TestOpenDoesNotNeedRedisUp(t *testing.T) {
	t.Parallel()
	cfg := rediskit.Config{URL: "redis://127.0.0.1:1/0", PoolSize: 1}
	require.NoError(t, cfg.Validate())
	rdb, err := rediskit.Open(cfg)
	require.NoError(t, err)
	defer rdb.Close()
	require.Error(t, rediskit.Ping(rdb)(context.Background()))
}

func TestPingAgainstRealRedis(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	require.NoError(t, rediskit.Ping(rdb)(context.Background()))
	require.NoError(t, rdb.Set(context.Background(), prefix+"k", "v", 0).Err())
}

func TestValidateRejectsBadURL(t *testing.T) {
	t.Parallel()
	require.Error(t, rediskit.Config{URL: "http://nope", PoolSize: 1}.Validate())
}

// TestCheckSettingsReadsTheServersSettings: the check reads the real server's settings and names
// each one production needs that is missing (docs/decisions.md, Reliability).
func TestCheckSettingsReadsTheServersSettings(t *testing.T) {
	t.Parallel()
	rdb, _ := redistest.New(t)
	s, err := rediskit.ReadSettings(context.Background(), rdb)
	require.NoError(t, err)
	require.NotEmpty(t, s.Policy)
	require.Equal(t, s.Policy != "noeviction", slices.Contains(s.Unsafe(), "eviction"))
	require.NoError(t, rediskit.CheckSettings(rdb)(context.Background()))
	require.Equal(t, []string{"persistence", "eviction"}, rediskit.Settings{Policy: "allkeys-lru"}.Unsafe())
	require.Empty(t, rediskit.Settings{Persistent: true, Policy: "noeviction"}.Unsafe())
}
