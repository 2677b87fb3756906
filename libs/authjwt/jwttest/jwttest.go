// Package jwttest stands in for identity in tests: it serves a JWKS over a real HTTP server and
// mints tokens with the matching private keys, including deliberately broken ones.
package jwttest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/bizassist/bizassist/libs/authjwt"
)

const (
	DefaultIssuer   = "bizassist-identity"
	DefaultAudience = "bizassist-api"
)

type signingKey struct {
	kid  string
	priv ed25519.PrivateKey
}

// Issuer mints tokens signed with its current key and publishes all its keys.
type Issuer struct {
	t       testing.TB
	srv     *httptest.Server
	fetches atomic.Int64

	mu   sync.Mutex
	keys []signingKey // the last one signs
}

// NewIssuer starts a JWKS server with one fresh key; it stops when the test ends.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	iss := &Issuer{t: t}
	iss.Rotate()
	iss.srv = httptest.NewServer(http.HandlerFunc(iss.serveJWKS))
	t.Cleanup(iss.srv.Close)
	return iss
}

func (iss *Issuer) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	iss.fetches.Add(1)
	iss.mu.Lock()
	var set authjwt.JWKS
	for _, k := range iss.keys {
		set.Keys = append(set.Keys, authjwt.PublicJWK(k.kid, k.priv.Public().(ed25519.PublicKey)))
	}
	iss.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=60")
	_ = json.NewEncoder(w).Encode(set)
}

// Config is a verifier config that trusts this issuer, with the production defaults otherwise.
func (iss *Issuer) Config() authjwt.Config {
	return authjwt.Config{
		JWKSURL:            iss.JWKSURL(),
		Issuer:             DefaultIssuer,
		Audience:           DefaultAudience,
		MinRefreshInterval: 30 * time.Second,
		MaxKeyAge:          5 * time.Minute,
		HTTPTimeout:        5 * time.Second,
		Leeway:             30 * time.Second,
	}
}

// JWKSURL is where the keys are served.
func (iss *Issuer) JWKSURL() string { return iss.srv.URL + "/api/auth/jwks.json" }

// Fetches is how many times the JWKS has been requested.
func (iss *Issuer) Fetches() int { return int(iss.fetches.Load()) }

// Stop shuts the JWKS server down, so fetches fail with connection refused.
func (iss *Issuer) Stop() { iss.srv.Close() }

// Rotate adds a new key that signs from now on; earlier keys stay published.
func (iss *Issuer) Rotate() {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		iss.t.Fatalf("generate key: %v", err)
	}
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.keys = append(iss.keys, signingKey{kid: fmt.Sprintf("test-key-%d", len(iss.keys)+1), priv: priv})
}

// RetireOldKeys stops publishing every key but the current one, as identity does once the
// tokens an old key signed have expired.
func (iss *Issuer) RetireOldKeys() {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.keys = iss.keys[len(iss.keys)-1:]
}

// KeyID is the kid of the current signing key.
func (iss *Issuer) KeyID() string { return iss.current().kid }

// PublicKey is the current signing key's public half.
func (iss *Issuer) PublicKey() ed25519.PublicKey {
	return iss.current().priv.Public().(ed25519.PublicKey)
}

func (iss *Issuer) current() signingKey {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return iss.keys[len(iss.keys)-1]
}

// Option changes one aspect of a minted token.
type Option func(*mint)

type mint struct {
	claims authjwt.Claims
	header map[string]any
	method jwt.SigningMethod
	key    any
}

// Claims lets a test edit the claims directly, e.g. to remove sub or exp.
func Claims(edit func(*authjwt.Claims)) Option {
	return func(m *mint) { edit(&m.claims) }
}

// ExpiresAt sets exp.
func ExpiresAt(t time.Time) Option {
	return Claims(func(c *authjwt.Claims) { c.ExpiresAt = jwt.NewNumericDate(t) })
}

// IssuerName sets iss.
func IssuerName(name string) Option {
	return Claims(func(c *authjwt.Claims) { c.Issuer = name })
}

// Audience sets aud.
func Audience(aud ...string) Option {
	return Claims(func(c *authjwt.Claims) { c.Audience = aud })
}

// KeyID sets the kid header; "" removes it.
func KeyID(kid string) Option {
	return func(m *mint) {
		if kid == "" {
			delete(m.header, "kid")
			return
		}
		m.header["kid"] = kid
	}
}

// SignedWith signs with another method and key, e.g. jwt.SigningMethodHS256 with the public key
// bytes, or jwt.SigningMethodNone with jwt.UnsafeAllowNoneSignatureType.
func SignedWith(method jwt.SigningMethod, key any) Option {
	return func(m *mint) { m.method, m.key = method, key }
}

// Token mints a token for c: signed with the current key, issued now (or at c.IssuedAt), expiring
// in an hour (or at c.ExpiresAt), with the issuer and audience of Config. Options change that.
func (iss *Issuer) Token(c authjwt.Caller, opts ...Option) string {
	iss.t.Helper()
	k := iss.current()
	now := time.Now()
	m := mint{
		claims: authjwt.Claims{
			RegisteredClaims: jwt.RegisteredClaims{
				Subject:   c.AccountID,
				Issuer:    DefaultIssuer,
				Audience:  jwt.ClaimStrings{DefaultAudience},
				IssuedAt:  jwt.NewNumericDate(now),
				ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
				ID:        c.TokenID,
			},
			Email: c.Email,
			Plan:  c.Plan,
			KeyID: c.KeyID,
		},
		header: map[string]any{"kid": k.kid},
		method: jwt.SigningMethodEdDSA,
		key:    k.priv,
	}
	if !c.IssuedAt.IsZero() {
		m.claims.IssuedAt = jwt.NewNumericDate(c.IssuedAt)
	}
	if !c.ExpiresAt.IsZero() {
		m.claims.ExpiresAt = jwt.NewNumericDate(c.ExpiresAt)
	}
	for _, o := range opts {
		o(&m)
	}
	tok := jwt.NewWithClaims(m.method, m.claims)
	for name, v := range m.header {
		tok.Header[name] = v
	}
	signed, err := tok.SignedString(m.key)
	if err != nil {
		iss.t.Fatalf("sign token: %v", err)
	}
	return signed
}
