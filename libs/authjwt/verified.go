package authjwt

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// verifiedCache remembers tokens whose signature and claims were checked, so a token presented
// again (the common case: a client sends one token for hours) skips the Ed25519 check, which is
// most of what verification costs. A remembered token counts only while it has not expired, the
// entry is younger than ttl, and the key that signed it is still published.
type verifiedCache struct {
	entries *lru.Cache[string, verifiedEntry]
	ttl     time.Duration
}

type verifiedEntry struct {
	caller Caller
	kid    string
	at     time.Time
}

// newVerifiedCache returns nil when size is 0: the cache is off.
func newVerifiedCache(size int, ttl time.Duration) *verifiedCache {
	if size <= 0 {
		return nil
	}
	entries, err := lru.New[string, verifiedEntry](size)
	if err != nil {
		panic(err) // only for a non-positive size, excluded above
	}
	return &verifiedCache{entries: entries, ttl: ttl}
}

func (c *verifiedCache) get(token string, now time.Time) (verifiedEntry, bool) {
	if c == nil {
		return verifiedEntry{}, false
	}
	e, ok := c.entries.Get(token)
	if !ok || !now.Before(e.caller.ExpiresAt) || now.Sub(e.at) >= c.ttl {
		return verifiedEntry{}, false
	}
	return e, true
}

func (c *verifiedCache) add(token, kid string, caller Caller, now time.Time) {
	if c != nil {
		c.entries.Add(token, verifiedEntry{caller: caller, kid: kid, at: now})
	}
}
