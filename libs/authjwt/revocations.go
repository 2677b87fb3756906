package authjwt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bizassist/bizassist/libs/contracts/identityevents"
)

var (
	errRevoked    = invalidToken("token was revoked")
	errKeyRevoked = invalidToken("API key was revoked")
)

// revocations are the accounts whose tokens issued before a time are refused, and the API keys
// whose minted tokens are refused. An entry matters only while a token it refuses can still be
// unexpired, so entries older than the longest token lifetime are dropped.
type revocations struct {
	mu       sync.RWMutex
	accounts map[string]time.Time // account id -> not before
	keys     map[string]time.Time // API key id -> revoked at
}

func newRevocations() *revocations {
	return &revocations{accounts: map[string]time.Time{}, keys: map[string]time.Time{}}
}

func (r *revocations) add(accountID, keyID string, notBefore time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if keyID != "" {
		r.keys[keyID] = notBefore
		return
	}
	if notBefore.After(r.accounts[accountID]) {
		r.accounts[accountID] = notBefore
	}
}

// check refuses a caller whose token an entry revokes.
func (r *revocations) check(c Caller) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if c.KeyID != "" {
		if _, ok := r.keys[c.KeyID]; ok {
			return errKeyRevoked
		}
	}
	if nbf, ok := r.accounts[c.AccountID]; ok && c.IssuedAt.Before(nbf) {
		return errRevoked
	}
	return nil
}

// prune drops the entries no unexpired token can match any more.
func (r *revocations) prune(now time.Time, leeway time.Duration) {
	horizon := now.Add(-MaxTokenLifetime - leeway)
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, t := range r.accounts {
		if t.Before(horizon) {
			delete(r.accounts, id)
		}
	}
	for id, t := range r.keys {
		if t.Before(horizon) {
			delete(r.keys, id)
		}
	}
}

// Revoke refuses from now on every token of accountID issued before notBefore or, when keyID is
// set, every token minted for that API key. FollowRevocations calls it for each account.revoked.
func (v *Verifier) Revoke(accountID, keyID string, notBefore time.Time) {
	v.revoked.add(accountID, keyID, notBefore)
	if keyID != "" {
		v.apiKeys.forgetKey(keyID)
	}
}

// revocationBlock is how long one read of the revocation stream waits for news; it bounds how
// soon the follower notices its context ending, not how soon a revocation applies.
const revocationBlock = 2 * time.Second

// FollowRevocations applies every account.revoked event identity publishes to stream (the
// events relay's Redis stream of that type) until ctx ends: first those of the last token
// lifetime, then each new one as it arrives, so a revocation reaches this process within the
// relay's delay (about 200 ms). Read errors are logged and retried; the entries known so far
// keep applying meanwhile.
func (v *Verifier) FollowRevocations(ctx context.Context, rdb redis.UniversalClient, stream string) error {
	last := strconv.FormatInt(v.now().Add(-MaxTokenLifetime-v.leeway).UnixMilli(), 10)
	failing := false
	for {
		next, err := v.readRevocations(ctx, rdb, stream, last)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			if !failing {
				slog.WarnContext(ctx, "revocation stream unreadable; retrying", "stream", stream, "error", err)
			}
			failing = true
			revocationFeedUp.Set(0)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		default:
			if failing {
				slog.InfoContext(ctx, "revocation stream readable again", "stream", stream)
			}
			failing = false
			revocationFeedUp.Set(1)
			last = next
			v.revoked.prune(v.now(), v.leeway)
		}
	}
}

// readRevocations applies the entries after id (waiting up to revocationBlock for one) and
// returns the id to continue after.
func (v *Verifier) readRevocations(ctx context.Context, rdb redis.UniversalClient, stream, id string) (string, error) {
	res, err := rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{stream, id}, Count: 500, Block: revocationBlock}).Result()
	if errors.Is(err, redis.Nil) {
		return id, nil
	}
	if err != nil {
		return id, err
	}
	for _, s := range res {
		for _, m := range s.Messages {
			id = m.ID
			if err := v.applyRevocation(m.Values); err != nil {
				slog.WarnContext(ctx, "revocation entry skipped", "stream", stream, "id", m.ID, "error", err)
			}
		}
	}
	return id, nil
}

// applyRevocation decodes one stream entry: an events envelope whose data is AccountRevokedData.
func (v *Verifier) applyRevocation(values map[string]any) error {
	raw, _ := values["envelope"].(string)
	var env struct {
		Data identityevents.AccountRevokedData `json:"data"`
	}
	if err := json.Unmarshal([]byte(raw), &env); err != nil {
		return fmt.Errorf("decode envelope: %w", err)
	}
	d := env.Data
	if d.AccountID == "" || d.NotBefore.IsZero() {
		return errors.New("entry names no account or time")
	}
	v.Revoke(d.AccountID, d.KeyID, d.NotBefore.Time)
	return nil
}
