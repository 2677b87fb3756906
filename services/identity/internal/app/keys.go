package app

import (
	"context"
	"time"

	"github.com/bizassist/bizassist/services/identity/internal/domain/signing"
)

// SigningKeys stores the keys that sign tokens.
type SigningKeys interface {
	Ring(ctx context.Context) (signing.Ring, error)
	// Rotate makes a new key the signing key and retires the others; it returns the new key's id.
	Rotate(ctx context.Context, now time.Time) (string, error)
	// Reseal seals the keys stored in plaintext or under an older encryption key, and says how many.
	Reseal(ctx context.Context) (int, error)
	// Withdraw stops signing with and publishing kid at once (signing.ErrUnknownKey if unknown).
	Withdraw(ctx context.Context, kid string, now time.Time) error
}

// ListSigningKeys returns every signing key identity knows, retired ones included.
type ListSigningKeys struct {
	Keys SigningKeys
}

func (h *ListSigningKeys) Handle(ctx context.Context) (signing.Ring, error) { return h.Keys.Ring(ctx) }

// RotateSigningKey starts signing with a new key. Retired keys stay published until the tokens
// they signed expire, so no one is signed out.
type RotateSigningKey struct {
	Keys SigningKeys
	Now  Clock
}

func (h *RotateSigningKey) Handle(ctx context.Context) (string, error) {
	return h.Keys.Rotate(ctx, h.Now())
}

// ResealSigningKeys seals every signing key with the current encryption key.
type ResealSigningKeys struct {
	Keys SigningKeys
}

func (h *ResealSigningKeys) Handle(ctx context.Context) (int, error) { return h.Keys.Reseal(ctx) }

// WithdrawSigningKey withdraws a signing key at once (a leaked key): it leaves the JWKS, so every
// token it signed stops verifying as each verifier refetches the JWKS (within its max-age).
type WithdrawSigningKey struct {
	Keys SigningKeys
	Now  Clock
}

func (h *WithdrawSigningKey) Handle(ctx context.Context, kid string) error {
	return h.Keys.Withdraw(ctx, kid, h.Now())
}
