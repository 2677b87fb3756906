// Package rediskit opens the Redis client services share. Redis holds only what may be lost or
// rebuilt (rate-limit state, caches, the event transport), so a client is created even while
// Redis is down: callers degrade instead of refusing to start.
package rediskit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config says where Redis is and how long to wait for it.
type Config struct {
	URL          string        `env:"REDIS_URL" envDefault:"redis://127.0.0.1:6379/0"`
	DialTimeout  time.Duration `env:"REDIS_DIAL_TIMEOUT" envDefault:"2s"`
	ReadTimeout  time.Duration `env:"REDIS_READ_TIMEOUT" envDefault:"1s"`
	WriteTimeout time.Duration `env:"REDIS_WRITE_TIMEOUT" envDefault:"1s"`
	PoolSize     int           `env:"REDIS_POOL_SIZE" envDefault:"20"`
}

// Validate reports a config that cannot work.
func (c Config) Validate() error {
	if _, err := redis.ParseURL(c.URL); err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	if c.PoolSize < 1 {
		return fmt.Errorf("REDIS_POOL_SIZE must be at least 1, got %d", c.PoolSize)
	}
	return nil
}

// Open returns a client for cfg without requiring Redis to be up.
func Open(cfg Config) (*redis.Client, error) {
	opts, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	opts.DialTimeout = cfg.DialTimeout
	opts.ReadTimeout = cfg.ReadTimeout
	opts.WriteTimeout = cfg.WriteTimeout
	opts.PoolSize = cfg.PoolSize
	// Honour context deadlines on every call, not only the configured socket timeouts.
	opts.ContextTimeoutEnabled = true
	return redis.NewClient(opts), nil
}

// Ping is a readiness check.
func Ping(rdb redis.UniversalClient) func(context.Context) error {
	return func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
}
