package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"golang.org/x/sync/singleflight"
)

// StatsTTL is how long computed statistics are served (spec 8: six hours).
const StatsTTL = 6 * time.Hour

// CatalogStats is GET /api/scout-stats. The body is computed at most once per TTL across
// replicas (Redis) and once at a time per process (singleflight), since it scans the catalog.
type CatalogStats struct {
	Catalog Catalog
	Cache   StatsCache
	Now     func() time.Time
	flight  *singleflight.Group
}

// NewCatalogStats wires the use case.
func NewCatalogStats(c Catalog, cache StatsCache, now func() time.Time) CatalogStats {
	return CatalogStats{Catalog: c, Cache: cache, Now: now, flight: &singleflight.Group{}}
}

// StatsBody is the rendered JSON and its ETag.
type StatsBody struct {
	JSON []byte
	ETag string
}

func (h CatalogStats) Handle(ctx context.Context) (StatsBody, error) {
	if body, ok := h.Cache.Get(ctx); ok {
		return withETag(body), nil
	}
	v, err, _ := h.flight.Do("stats", func() (any, error) {
		s, err := h.Catalog.Stats(ctx, h.Now())
		if err != nil {
			return nil, fmt.Errorf("catalog stats: %w", err)
		}
		body, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		h.Cache.Set(ctx, body, StatsTTL)
		return body, nil
	})
	if err != nil {
		return StatsBody{}, err
	}
	return withETag(v.([]byte)), nil
}

func withETag(body []byte) StatsBody {
	sum := sha256.Sum256(body)
	return StatsBody{JSON: body, ETag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}
