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

func TestSlotMatchesRedisCluster(t *testing.T) {
	t.Parallel()
	// Values of CLUSTER KEYSLOT (and CRC16/XMODEM's check value 0x31C3 for "123456789").
	require.Equal(t, 12739, rediskit.Slot("123456789"))
	require.Equal(t, 12182, rediskit.Slot("foo"))
	require.Equal(t, rediskit.Slot("user1000"), rediskit.Slot("{user1000}.following"))
	require.Equal(t, rediskit.Slot("{}x"), rediskit.Slot("{}x"), "an empty tag hashes the whole key")
	require.NotEqual(t, rediskit.Slot("x"), rediskit.Slot("{}x"))
}

func TestClusterSettings(t *testing.T) {
	t.Parallel()
	single := rediskit.Config{URL: "redis://127.0.0.1:6379/2", PoolSize: 1}
	require.False(t, single.Cluster())
	for _, cfg := range []rediskit.Config{
		{URL: "redis://", ClusterAddrs: []string{"127.0.0.1:7101", "127.0.0.1:7102"}, PoolSize: 1},
		{URL: "redis://127.0.0.1:7101?addr=127.0.0.1:7102", PoolSize: 1},
		{URL: "redis://", ClusterAddrs: []string{"redis-cluster.example:6379"}, PoolSize: 1}, // one seed is enough
	} {
		require.True(t, cfg.Cluster(), cfg)
		require.NoError(t, cfg.Validate())
		rdb, err := rediskit.Open(cfg)
		require.NoError(t, err)
		require.True(t, rediskit.IsCluster(rdb))
		require.NoError(t, rdb.Close())
	}
	require.ErrorContains(t, rediskit.Config{URL: "redis://127.0.0.1:7101/3?addr=127.0.0.1:7102", PoolSize: 1}.Validate(), "database 0")
	require.ErrorContains(t, rediskit.Config{URL: "redis://", ClusterAddrs: []string{"nope"}, PoolSize: 1}.Validate(), "REDIS_CLUSTER_ADDRS")
}

func TestClusterSlotAgreesWithServer(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	if !rediskit.IsCluster(rdb) {
		t.Skip("TEST_REDIS_CLUSTER_ADDRS is not set")
	}
	for _, key := range []string{prefix + "a", prefix + "lead.written", "{" + prefix + "}x"} {
		slot, err := rdb.ClusterKeySlot(context.Background(), key).Result()
		require.NoError(t, err)
		require.Equal(t, int(slot), rediskit.Slot(key), key)
	}
}
