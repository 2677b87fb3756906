package postgres

import (
	"sync"
	"time"
)

// Bounds of the webhook secrets the Accounts store remembers: for how long, and how many before
// it starts over (a sender spraying valid secrets of many accounts cannot grow it without end).
const (
	secretsRemembered    = time.Second
	maxSecretsRemembered = 10_000
)

// rememberedSecrets are recently looked-up webhook secrets by hash: owner and stored hash.
type rememberedSecrets struct {
	mu     sync.Mutex
	byHash map[string]rememberedSecret
}

type rememberedSecret struct {
	accountID string
	stored    []byte
	until     time.Time
}

func (r *rememberedSecrets) recall(hash []byte) (accountID string, stored []byte, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.byHash[string(hash)]
	if !ok || time.Now().After(e.until) {
		return "", nil, false
	}
	return e.accountID, e.stored, true
}

func (r *rememberedSecrets) remember(hash []byte, accountID string, stored []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byHash == nil || len(r.byHash) >= maxSecretsRemembered {
		r.byHash = map[string]rememberedSecret{}
	}
	r.byHash[string(hash)] = rememberedSecret{accountID: accountID, stored: stored, until: time.Now().Add(secretsRemembered)}
}

// forget drops everything: a secret changed.
func (r *rememberedSecrets) forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byHash = nil
}
