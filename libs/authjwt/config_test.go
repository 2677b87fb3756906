package authjwt_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/authjwt"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	good := authjwt.Config{
		JWKSURL: "http://127.0.0.1:8081/api/auth/jwks.json", Issuer: "bizassist-identity", Audience: "bizassist-api",
		MinRefreshInterval: 30 * time.Second, MaxKeyAge: 5 * time.Minute, HTTPTimeout: 5 * time.Second, Leeway: 30 * time.Second,
	}
	require.NoError(t, good.Validate())

	broken := map[string]func(*authjwt.Config){
		"no url":           func(c *authjwt.Config) { c.JWKSURL = "" },
		"relative url":     func(c *authjwt.Config) { c.JWKSURL = "/api/auth/jwks.json" },
		"ftp url":          func(c *authjwt.Config) { c.JWKSURL = "ftp://identity/jwks.json" },
		"no issuer":        func(c *authjwt.Config) { c.Issuer = "" },
		"no audience":      func(c *authjwt.Config) { c.Audience = "" },
		"no refresh bound": func(c *authjwt.Config) { c.MinRefreshInterval = 0 },
		"no timeout":       func(c *authjwt.Config) { c.HTTPTimeout = 0 },
		"negative leeway":  func(c *authjwt.Config) { c.Leeway = -time.Second },
	}
	for name, breakIt := range broken {
		c := good
		breakIt(&c)
		require.Error(t, c.Validate(), name)
		_, err := authjwt.NewVerifier(c)
		require.Error(t, err, name)
	}

	// Each wrong duration is named on its own, with its value.
	c := good
	c.HTTPTimeout, c.MaxKeyAge, c.VerifiedCacheSize = 0, -time.Minute, 10
	require.EqualError(t, c.Validate(), "JWT_JWKS_TIMEOUT must be positive, not 0s\nJWT_JWKS_MAX_AGE must be positive, not -1m0s\n"+
		"JWT_VERIFIED_CACHE_TTL must be positive, not 0s")
}

func newPublicKey(t *testing.T) ed25519.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	return pub
}

func TestJWKRoundTrip(t *testing.T) {
	t.Parallel()
	pub := newPublicKey(t)

	jwk := authjwt.PublicJWK("k1", pub)
	require.Equal(t, authjwt.JWK{Kty: "OKP", Crv: "Ed25519", X: jwk.X, Kid: "k1", Use: "sig", Alg: "EdDSA"}, jwk)
	got, err := jwk.PublicKey()
	require.NoError(t, err)
	require.True(t, pub.Equal(got))
}

func TestJWKRejectsUnusableKeys(t *testing.T) {
	t.Parallel()
	pub := newPublicKey(t)
	good := authjwt.PublicJWK("k1", pub)

	broken := map[string]func(*authjwt.JWK){
		"no kid":       func(k *authjwt.JWK) { k.Kid = "" },
		"EC key":       func(k *authjwt.JWK) { k.Kty, k.Crv = "EC", "P-256" },
		"X25519":       func(k *authjwt.JWK) { k.Crv = "X25519" },
		"encryption":   func(k *authjwt.JWK) { k.Use = "enc" },
		"other alg":    func(k *authjwt.JWK) { k.Alg = "ES256" },
		"short x":      func(k *authjwt.JWK) { k.X = k.X[:20] },
		"x not base64": func(k *authjwt.JWK) { k.X = "!!!" },
	}
	for name, breakIt := range broken {
		k := good
		breakIt(&k)
		_, err := k.PublicKey()
		require.Error(t, err, name)
	}
}

func TestJWKSPublicKeys(t *testing.T) {
	t.Parallel()
	pub := newPublicKey(t)
	ok := authjwt.PublicJWK("k1", pub)
	rsa := authjwt.JWK{Kty: "RSA", Kid: "r1", Use: "sig", Alg: "RS256"}

	keys, err := authjwt.JWKS{Keys: []authjwt.JWK{rsa, ok}}.PublicKeys()
	require.NoError(t, err)
	require.Len(t, keys, 1)
	require.True(t, pub.Equal(keys["k1"]))

	_, err = authjwt.JWKS{Keys: []authjwt.JWK{rsa}}.PublicKeys()
	require.ErrorContains(t, err, "no usable Ed25519 signing key")
	_, err = authjwt.JWKS{}.PublicKeys()
	require.Error(t, err)
	_, err = authjwt.JWKS{Keys: []authjwt.JWK{ok, ok}}.PublicKeys()
	require.ErrorContains(t, err, "twice")
}
