// Package signer issues identity's Ed25519 access tokens from the current signing key ring.
package signer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/identity/internal/app"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
	"github.com/bizassist/bizassist/services/identity/internal/domain/signing"
)

// RingSource loads the current signing keys.
type RingSource interface {
	Ring(ctx context.Context) (signing.Ring, error)
}

// Signer issues EdDSA tokens with the active key and serves the published keys as a JWKS. It
// reloads the ring periodically so that a rotation done by another process reaches every replica.
type Signer struct {
	source   RingSource
	issuer   string
	audience string
	maxAge   time.Duration

	mu       sync.RWMutex
	ring     signing.Ring
	loadedAt time.Time
}

// New builds a signer; maxAge is how long a loaded ring is trusted before reloading.
func New(source RingSource, issuer, audience string, maxAge time.Duration) *Signer {
	return &Signer{source: source, issuer: issuer, audience: audience, maxAge: maxAge}
}

func (s *Signer) current(ctx context.Context, now time.Time) (signing.Ring, error) {
	s.mu.RLock()
	ring, fresh := s.ring, now.Sub(s.loadedAt) < s.maxAge
	s.mu.RUnlock()
	if fresh && ring != nil {
		return ring, nil
	}
	loaded, err := s.source.Ring(ctx)
	if err != nil {
		if ring != nil {
			return ring, nil // keep signing with the keys we had while the database blips
		}
		return nil, err
	}
	s.mu.Lock()
	s.ring, s.loadedAt = loaded, now
	s.mu.Unlock()
	return loaded, nil
}

// Issue signs a 24-hour token for a.
func (s *Signer) Issue(ctx context.Context, a *account.Account, now time.Time) (app.IssuedToken, error) {
	return s.sign(ctx, a, "", signing.TokenLifetime, now)
}

// IssueForKey signs a short-lived token for a's API key keyID.
func (s *Signer) IssueForKey(ctx context.Context, a *account.Account, keyID string, now time.Time) (app.IssuedToken, error) {
	return s.sign(ctx, a, keyID, signing.KeyTokenLifetime, now)
}

// sign issues a token no earlier than a's not-before time, so it survives the revocation that
// set it.
func (s *Signer) sign(ctx context.Context, a *account.Account, keyID string, lifetime time.Duration, now time.Time) (app.IssuedToken, error) {
	ring, err := s.current(ctx, now)
	if err != nil {
		return app.IssuedToken{}, err
	}
	key, ok := ring.Active()
	if !ok {
		return app.IssuedToken{}, errors.New("no active signing key (run `identity keys rotate`)")
	}
	iat := a.TokenIssuedAt(now.UTC().Truncate(time.Second))
	exp := iat.Add(lifetime)
	claims := authjwt.Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.issuer,
			Subject:   a.ID(),
			Audience:  jwt.ClaimStrings{s.audience},
			IssuedAt:  jwt.NewNumericDate(iat),
			ExpiresAt: jwt.NewNumericDate(exp),
			ID:        ids.New("tok"),
		},
		Email: a.Email(),
		Plan:  string(a.Plan()),
		KeyID: keyID,
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header["kid"] = key.Kid
	signed, err := tok.SignedString(key.Private)
	if err != nil {
		return app.IssuedToken{}, fmt.Errorf("sign token: %w", err)
	}
	return app.IssuedToken{Value: signed, ExpiresAt: exp}, nil
}

// JWKS returns the keys verifiers must know now.
func (s *Signer) JWKS(ctx context.Context, now time.Time) (authjwt.JWKS, error) {
	ring, err := s.current(ctx, now)
	if err != nil {
		return authjwt.JWKS{}, err
	}
	published := ring.Published(now)
	set := authjwt.JWKS{Keys: make([]authjwt.JWK, 0, len(published))}
	for _, k := range published {
		set.Keys = append(set.Keys, authjwt.PublicJWK(k.Kid, k.Public()))
	}
	return set, nil
}
