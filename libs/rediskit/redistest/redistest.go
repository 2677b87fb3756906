// Package redistest connects tests to the real Redis server (or Redis Cluster) with a key prefix
// of their own, so parallel tests never see each other's keys, and removes those keys afterwards.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bizassist/bizassist/libs/rediskit"
)

// URL is the server used for tests; override with TEST_REDIS_URL.
func URL() string {
	if u := os.Getenv("TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// Config is what tests connect with: URL, and TEST_REDIS_CLUSTER_ADDRS (comma-separated seed
// nodes) to run against a Redis Cluster instead.
func Config() rediskit.Config {
	cfg := rediskit.Config{URL: URL(), DialTimeout: 2 * time.Second, ReadTimeout: 3 * time.Second,
		WriteTimeout: 3 * time.Second, PoolSize: 20}
	if addrs := os.Getenv("TEST_REDIS_CLUSTER_ADDRS"); addrs != "" {
		cfg.URL = "redis://"
		cfg.ClusterAddrs = strings.Split(addrs, ",")
	}
	return cfg
}

// New returns a client for the test Redis and a unique key prefix (ending in ':') for this test.
func New(t testing.TB) (redis.UniversalClient, string) {
	t.Helper()
	cfg := Config()
	rdb, err := rediskit.Open(cfg)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("redistest: ping %s%v: %v (is Redis running?)", cfg.URL, cfg.ClusterAddrs, err)
	}
	buf := make([]byte, 6)
	_, _ = rand.Read(buf)
	prefix := "test:" + hex.EncodeToString(buf) + ":"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rediskit.ForEachMaster(ctx, rdb, func(ctx context.Context, node *redis.Client) error {
			iter := node.Scan(ctx, 0, prefix+"*", 500).Iterator()
			for iter.Next(ctx) {
				node.Del(ctx, iter.Val())
			}
			return nil
		})
		_ = rdb.Close()
	})
	return rdb, prefix
}
