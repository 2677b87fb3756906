// Package feedcache keeps the rendered public feed in Redis for a short while. Redis is only a
// cache here: when it fails, the feed is rendered from PostgreSQL instead.
package feedcache

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cache stores one rendered feed body under key.
type Cache struct {
	rdb redis.UniversalClient
	key string
	ttl time.Duration
}

// callTimeout keeps a slow or absent Redis from slowing the feed down.
const callTimeout = 100 * time.Millisecond

func New(rdb redis.UniversalClient, prefix string, ttl time.Duration) *Cache {
	return &Cache{rdb: rdb, key: prefix + ":feed:v1", ttl: ttl}
}

func (c *Cache) Get(ctx context.Context) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	body, err := c.rdb.Get(ctx, c.key).Bytes()
	if err != nil {
		if !errors.Is(err, redis.Nil) {
			slog.WarnContext(ctx, "feed cache read failed", "error", err)
		}
		return nil, false
	}
	return body, true
}

func (c *Cache) Set(ctx context.Context, body []byte) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := c.rdb.Set(ctx, c.key, body, c.ttl).Err(); err != nil {
		slog.WarnContext(ctx, "feed cache write failed", "error", err)
	}
}

func (c *Cache) Invalidate(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := c.rdb.Del(ctx, c.key).Err(); err != nil {
		slog.WarnContext(ctx, "feed cache invalidation failed", "error", err)
	}
}
