package authjwt

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// maxJWKSBytes caps the JWKS body we read; a real one is a few hundred bytes per key.
const maxJWKSBytes = 1 << 20

// keyCache holds the JWKS keys by kid. It fetches lazily, refetches when a token names an
// unknown kid or the set is older than its max-age (so a withdrawn key stops verifying without a
// restart), and lets at most one fetch start per minInterval however many misses there are.
type keyCache struct {
	url         string
	client      *http.Client
	minInterval time.Duration
	maxAge      time.Duration // the longest a fetched set is used; the JWKS's max-age may shorten it
	now         func() time.Time

	flight singleflight.Group

	mu        sync.RWMutex
	keys      map[string]ed25519.PublicKey
	lastFetch time.Time // when the last fetch attempt finished, successful or not
	fetchErr  error     // the outcome of that attempt
	staleAt   time.Time // when the keys fetched last must be fetched again
}

// key returns the key for kid, refreshing the set if kid is unknown. It fails with
// errUnknownKey when a fresh enough JWKS lacks kid, and with an Unavailable error when the JWKS
// could not be fetched.
func (c *keyCache) key(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	if k, ok := c.current(ctx, kid); ok {
		return k, nil
	}
	if err := c.refreshShared(ctx); err != nil {
		return nil, err
	}
	if k, ok := c.lookup(kid); ok {
		return k, nil
	}
	c.mu.RLock()
	err := c.fetchErr
	c.mu.RUnlock()
	if err != nil {
		return nil, errUnavailable.Wrap(err)
	}
	return nil, errUnknownKey
}

// current is lookup on a key set that is not past its max-age: a stale set is fetched again
// first (a failed fetch keeps the old keys, so an identity outage signs nobody out).
func (c *keyCache) current(ctx context.Context, kid string) (ed25519.PublicKey, bool) {
	c.mu.RLock()
	stale := !c.staleAt.IsZero() && !c.now().Before(c.staleAt)
	c.mu.RUnlock()
	if stale {
		_ = c.refreshShared(ctx)
	}
	return c.lookup(kid)
}

// refreshShared runs one refresh for every caller waiting at the same time. The fetch outlives a
// caller that gives up, so that the others sharing it still get keys.
func (c *keyCache) refreshShared(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err // nobody is waiting for a fetch
	}
	ch := c.flight.DoChan("jwks", func() (any, error) {
		c.refresh(context.WithoutCancel(ctx))
		return nil, nil
	})
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
		return nil
	}
}

func (c *keyCache) lookup(kid string) (ed25519.PublicKey, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	k, ok := c.keys[kid]
	return k, ok
}

// refresh fetches the JWKS unless the last attempt is more recent than minInterval. A failed
// fetch keeps the keys already cached.
func (c *keyCache) refresh(ctx context.Context) {
	c.mu.RLock()
	recent := !c.lastFetch.IsZero() && c.now().Sub(c.lastFetch) < c.minInterval
	c.mu.RUnlock()
	if recent {
		return
	}
	keys, maxAge, err := c.fetch(ctx)
	if err != nil {
		slog.WarnContext(ctx, "jwks fetch failed; keeping cached keys", "url", c.url, "error", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastFetch = c.now()
	c.fetchErr = err
	if err == nil {
		c.keys = keys
	}
	if c.keys != nil {
		// After a failure the old keys are tried again no sooner than minInterval.
		c.staleAt = c.lastFetch.Add(max(c.minInterval, min(maxAge, c.maxAge)))
	}
}

// fetch returns the published keys and how long the response says they may be used (the
// max-age of its Cache-Control; c.maxAge when it has none).
func (c *keyCache) fetch(ctx context.Context) (map[string]ed25519.PublicKey, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("jwks answered %s", resp.Status)
	}
	var set JWKS
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&set); err != nil {
		return nil, 0, fmt.Errorf("decode jwks: %w", err)
	}
	keys, err := set.PublicKeys()
	return keys, maxAgeOf(resp.Header.Get("Cache-Control"), c.maxAge), err
}

// maxAgeOf reads max-age from a Cache-Control value; def when there is none.
func maxAgeOf(cacheControl string, def time.Duration) time.Duration {
	for _, d := range strings.Split(cacheControl, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(d), "=")
		if ok && strings.EqualFold(name, "max-age") {
			if n, err := strconv.Atoi(strings.Trim(val, `"`)); err == nil && n >= 0 {
				return time.Duration(n) * time.Second
			}
		}
	}
	return def
}
