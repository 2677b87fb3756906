// Package signing holds the rules for token signing keys: which key signs, which keys are
// published, and how long a token lives.
package signing

import (
	"crypto/ed25519"
	"sort"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
)

// ErrUnknownKey names a signing key that does not exist or was withdrawn already.
var ErrUnknownKey = apperr.NotFound("signing_key_not_found", "no such signing key (or it was withdrawn already)")

// KeyTokenLifetime is how long a token minted for an API key lives: verifiers reuse it for half
// of that, so a key costs identity one exchange per verifier every few minutes.
const KeyTokenLifetime = 10 * time.Minute

// TokenLifetime is how long an issued token is valid (spec §5: 24 hours).
const TokenLifetime = 24 * time.Hour

// publishGrace keeps a retired key published a little past the last token it signed, for clock skew.
const publishGrace = 5 * time.Minute

// Key is one Ed25519 signing key.
type Key struct {
	Kid       string
	Private   ed25519.PrivateKey
	CreatedAt time.Time
	RetiredAt *time.Time
}

// Public returns the verification half of the key.
func (k Key) Public() ed25519.PublicKey { return k.Private.Public().(ed25519.PublicKey) }

// Ring is the set of keys known to identity.
type Ring []Key

// Active returns the newest key that is not retired, the one new tokens are signed with.
func (r Ring) Active() (Key, bool) {
	var best Key
	found := false
	for _, k := range r {
		if k.RetiredAt == nil && (!found || k.CreatedAt.After(best.CreatedAt)) {
			best, found = k, true
		}
	}
	return best, found
}

// Published returns the keys verifiers must know at now: unretired keys, and retired keys while
// a token they signed may still be alive. Newest first.
func (r Ring) Published(now time.Time) []Key {
	out := make([]Key, 0, len(r))
	for _, k := range r {
		if k.RetiredAt == nil || now.Before(k.RetiredAt.Add(TokenLifetime+publishGrace)) {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out
}
