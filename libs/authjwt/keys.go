package authjwt

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// maxJWKSBytes caps the JWKS body we read; a real one is a few hundred bytes per key.
const maxJWKSBytes = 1 << 20

// keyCache holds the JWKS keys by kid. It fetches lazily, refetches when a token names an
// unknown kid, and lets at most one fetch start per minInterval however many misses there are.
type keyCache struct {
	url         string
	client      *http.Client
	minInterval time.Duration
	now         func() time.Time

	flight singleflight.Group

	mu        sync.RWMutex
	keys      map[string]ed25519.PublicKey
	lastFetch time.Time // when the last fetch attempt finished, successful or not
	fetchErr  error     // the outcome of that attempt
}

// key returns the key for kid, refreshing the set if kid is unknown. It fails with
// errUnknownKey when a fresh enough JWKS lacks kid, and with an Unavailable error when the JWKS
// could not be fetched.
func (c *keyCache) key(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	if k, ok := c.lookup(kid); ok {
		return k, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err // nobody is waiting for a fetch
	}
	// The fetch outlives a caller that gives up, so that the others sharing it still get keys.
	ch := c.flight.DoChan("jwks", func() (any, error) {
		c.refresh(context.WithoutCancel(ctx))
		return nil, nil
	})
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-ch:
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
	keys, err := c.fetch(ctx)
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
}

func (c *keyCache) fetch(ctx context.Context) (map[string]ed25519.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("jwks answered %s", resp.Status)
	}
	var set JWKS
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&set); err != nil {
		return nil, fmt.Errorf("decode jwks: %w", err)
	}
	return set.PublicKeys()
}
