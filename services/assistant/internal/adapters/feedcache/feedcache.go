// Package feedcache keeps the rendered public feed in Redis for a short while, with a copy in
// process memory for a second so that a busy replica does not ask Redis on every request. Redis
// is only a cache here: when it fails, the feed is rendered from PostgreSQL instead.
package feedcache

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// callTimeout keeps a slow or absent Redis from slowing the feed down.
	callTimeout = 100 * time.Millisecond
	// localTTL bounds how much staler than Redis a replica's copy may be.
	localTTL = time.Second
)

// Cache stores one rendered feed body under key.
type Cache struct {
	rdb redis.UniversalClient
	key string
	ttl time.Duration

	mu      sync.RWMutex
	local   []byte
	expires time.Time
}

func New(rdb redis.UniversalClient, prefix string, ttl time.Duration) *Cache {
	return &Cache{rdb: rdb, key: prefix + ":feed:v1", ttl: ttl}
}

func (c *Cache) Get(ctx context.Context) ([]byte, bool) {
	c.mu.RLock()
	body, fresh := c.local, time.Now().Before(c.expires)
	c.mu.RUnlock()
	if fresh {
		return body, true
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	body, err := c.rdb.Get(ctx, c.key).Bytes()
	if err != nil {
		if !errors.Is(err, redis.Nil) {
			slog.WarnContext(ctx, "feed cache read failed", "error", err)
		}
		return nil, false
	}
	c.keep(body)
	return body, true
}

func (c *Cache) Set(ctx context.Context, body []byte) {
	c.keep(body)
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := c.rdb.Set(ctx, c.key, body, c.ttl).Err(); err != nil {
		slog.WarnContext(ctx, "feed cache write failed", "error", err)
	}
}

func (c *Cache) Invalidate(ctx context.Context) {
	c.mu.Lock()
	c.local, c.expires = nil, time.Time{}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := c.rdb.Del(ctx, c.key).Err(); err != nil {
		slog.WarnContext(ctx, "feed cache invalidation failed", "error", err)
	}
}

func (c *Cache) keep(body []byte) {
	c.mu.Lock()
	c.local, c.expires = body, time.Now().Add(localTTL)
	c.mu.Unlock()
}
