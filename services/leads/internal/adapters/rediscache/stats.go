// Package rediscache keeps rendered responses in Redis, shared by every replica. A Redis outage
// is a cache miss, never an error: the body can always be computed again.
package rediscache

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Stats caches the scout-stats body, one key per catalog version.
type Stats struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewStats stores under prefix + "leads:scout-stats:<version>".
func NewStats(rdb redis.UniversalClient, prefix string) *Stats {
	return &Stats{rdb: rdb, prefix: prefix + "leads:scout-stats:"}
}

func (s *Stats) key(version int64) string { return s.prefix + strconv.FormatInt(version, 10) }

func (s *Stats) Get(ctx context.Context, version int64) ([]byte, bool) {
	body, err := s.rdb.Get(ctx, s.key(version)).Bytes()
	if err != nil {
		if !errors.Is(err, redis.Nil) {
			slog.WarnContext(ctx, "stats cache read failed", "error", err)
		}
		return nil, false
	}
	return body, true
}

func (s *Stats) Set(ctx context.Context, version int64, body []byte, ttl time.Duration) {
	if err := s.rdb.Set(ctx, s.key(version), body, ttl).Err(); err != nil {
		slog.WarnContext(ctx, "stats cache write failed", "error", err)
	}
}
