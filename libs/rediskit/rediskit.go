// Package rediskit opens the Redis client services share. Redis holds only what may be lost or
// rebuilt (rate-limit state, caches, the event transport), so a client is created even while
// Redis is down: callers degrade instead of refusing to start.
//
// One setting selects the shape: REDIS_URL alone is a single node; REDIS_CLUSTER_ADDRS (a comma
// list of seed nodes) or a REDIS_URL with addr= parameters is a Redis Cluster. Both give a
// redis.UniversalClient, so no caller knows which it has.
package rediskit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config says where Redis is and how long to wait for it.
type Config struct {
	URL string `env:"REDIS_URL" envDefault:"redis://127.0.0.1:6379/0"`
	// ClusterAddrs are seed nodes of a Redis Cluster (host:port, comma-separated); when set, URL
	// gives only the credentials and TLS.
	ClusterAddrs []string      `env:"REDIS_CLUSTER_ADDRS" envSeparator:","`
	DialTimeout  time.Duration `env:"REDIS_DIAL_TIMEOUT" envDefault:"2s"`
	ReadTimeout  time.Duration `env:"REDIS_READ_TIMEOUT" envDefault:"1s"`
	WriteTimeout time.Duration `env:"REDIS_WRITE_TIMEOUT" envDefault:"1s"`
	PoolSize     int           `env:"REDIS_POOL_SIZE" envDefault:"20"`
}

// Cluster reports whether the config names a Redis Cluster.
func (c Config) Cluster() bool {
	if len(c.ClusterAddrs) > 0 {
		return true
	}
	u, err := url.Parse(c.URL)
	return err == nil && u.Query().Has("addr")
}

// Validate reports a config that cannot work.
func (c Config) Validate() error {
	var err error
	if c.Cluster() {
		_, err = c.clusterOptions()
	} else if _, err = redis.ParseURL(c.URL); err != nil {
		err = fmt.Errorf("REDIS_URL: %w", err)
	}
	if err != nil {
		return err
	}
	if c.PoolSize < 1 {
		return fmt.Errorf("REDIS_POOL_SIZE must be at least 1, got %d", c.PoolSize)
	}
	return nil
}

// clusterOptions turns a cluster config into go-redis options.
func (c Config) clusterOptions() (*redis.ClusterOptions, error) {
	if u, err := url.Parse(c.URL); err == nil && strings.Trim(u.Path, "/") != "" && strings.Trim(u.Path, "/") != "0" {
		return nil, errors.New("REDIS_URL: a Redis Cluster has only database 0")
	}
	o, err := redis.ParseClusterURL(c.URL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	if len(c.ClusterAddrs) > 0 {
		o.Addrs = o.Addrs[:0]
		for _, a := range c.ClusterAddrs {
			a = strings.TrimSpace(a)
			if _, _, err := net.SplitHostPort(a); err != nil {
				return nil, fmt.Errorf("REDIS_CLUSTER_ADDRS: %q: %w", a, err)
			}
			o.Addrs = append(o.Addrs, a)
		}
	}
	return o, nil
}

// Open returns a client for cfg without requiring Redis to be up: a *redis.ClusterClient for a
// cluster, a *redis.Client otherwise.
func Open(cfg Config) (redis.UniversalClient, error) {
	useSlog()
	if !cfg.Cluster() {
		opts, err := redis.ParseURL(cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("REDIS_URL: %w", err)
		}
		opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = cfg.DialTimeout, cfg.ReadTimeout, cfg.WriteTimeout
		opts.PoolSize = cfg.PoolSize
		// Honour context deadlines on every call, not only the configured socket timeouts.
		opts.ContextTimeoutEnabled = true
		return redis.NewClient(opts), nil
	}
	opts, err := cfg.clusterOptions()
	if err != nil {
		return nil, err
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = cfg.DialTimeout, cfg.ReadTimeout, cfg.WriteTimeout
	opts.PoolSize = cfg.PoolSize // per node
	opts.ContextTimeoutEnabled = true
	return redis.NewClusterClient(opts), nil
}

// Ping is a readiness check.
func Ping(rdb redis.UniversalClient) func(context.Context) error {
	return func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
}

// ForEachMaster runs fn on the client of every master: the one node of a single-node client, or
// each master of a cluster (for commands that see one node's keys only: SCAN, INFO, WAIT).
func ForEachMaster(ctx context.Context, rdb redis.UniversalClient, fn func(ctx context.Context, node *redis.Client) error) error {
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		return c.ForEachMaster(ctx, fn)
	case *redis.Client:
		return fn(ctx, c)
	default:
		return fmt.Errorf("rediskit: unsupported client %T", rdb)
	}
}

// MasterForKey returns the client of the master that holds key: the client itself for a single
// node. Commands that act on a node rather than a key (WAIT) must follow a write there.
func MasterForKey(ctx context.Context, rdb redis.UniversalClient, key string) (*redis.Client, error) {
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		return c.MasterForKey(ctx, key)
	case *redis.Client:
		return c, nil
	default:
		return nil, fmt.Errorf("rediskit: unsupported client %T", rdb)
	}
}

// recentTimeout bounds a look-up on a read path: past it the read goes to the primary.
const recentTimeout = 200 * time.Millisecond

// Recent is pgkit.Recent in Redis: one key with a TTL per writer, shared by every replica of a
// service, so a user's next request sees their write whichever replica serves it.
type Recent struct {
	RDB    redis.UniversalClient
	Prefix string
}

func (r Recent) Mark(ctx context.Context, key string, ttl time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, recentTimeout)
	defer cancel()
	return r.RDB.Set(ctx, r.Prefix+key, 1, ttl).Err()
}

func (r Recent) Seen(ctx context.Context, key string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, recentTimeout)
	defer cancel()
	n, err := r.RDB.Exists(ctx, r.Prefix+key).Result()
	return n > 0, err
}
