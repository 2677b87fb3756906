package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sync/singleflight"
)

// StatsTTL is how long computed statistics are served (spec 8: six hours).
const StatsTTL = 6 * time.Hour

// CatalogStats is GET /api/scout-stats. The body is computed at most once per TTL and catalog
// version across replicas (Redis) and once at a time per process (singleflight), since it scans
// the catalog; an import changes the version, so fresh data never waits out the TTL.
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

// Handle returns the rendered JSON body.
func (h CatalogStats) Handle(ctx context.Context) ([]byte, error) {
	version, err := h.Catalog.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog version: %w", err)
	}
	if body, ok := h.Cache.Get(ctx, version); ok {
		return body, nil
	}
	v, err, _ := h.flight.Do(strconv.FormatInt(version, 10), func() (any, error) {
		s, err := h.Catalog.Stats(ctx, h.Now())
		if err != nil {
			return nil, fmt.Errorf("catalog stats: %w", err)
		}
		body, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		h.Cache.Set(ctx, version, body, StatsTTL)
		return body, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}
