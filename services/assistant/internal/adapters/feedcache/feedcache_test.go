package feedcache_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/rediskit/redistest"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/feedcache"
)

func TestCacheSharesThroughRedisAndInvalidates(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	ctx := context.Background()
	a, b := feedcache.New(rdb, prefix, time.Minute), feedcache.New(rdb, prefix, time.Minute)

	_, ok := a.Get(ctx)
	require.False(t, ok)
	a.Set(ctx, []byte(`{"events":[],"demo":true}`))
	got, ok := b.Get(ctx) // another replica finds it in Redis
	require.True(t, ok)
	require.JSONEq(t, `{"events":[],"demo":true}`, string(got))
	ttl, err := rdb.TTL(ctx, prefix+":feed:v1").Result()
	require.NoError(t, err)
	require.Greater(t, ttl, 50*time.Second)

	a.Invalidate(ctx)
	_, ok = a.Get(ctx)
	require.False(t, ok, "the invalidating replica drops its own copy at once")
}

func TestCacheServesWithoutRedis(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	c := feedcache.New(rdb, prefix, time.Minute)
	require.NoError(t, rdb.Close())
	c.Set(context.Background(), []byte(`{}`)) // logged, not fatal
	_, ok := c.Get(context.Background())
	require.True(t, ok, "the in-process copy still answers")
}
