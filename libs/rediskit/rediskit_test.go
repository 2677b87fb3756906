package rediskit_test

import (
	"context"
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
