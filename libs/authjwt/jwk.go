package authjwt

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"

	"github.com/golang-jwt/jwt/v5"
)

// Claims are the claims identity puts in an access token: sub is the account id, jti the token id.
type Claims struct {
	jwt.RegisteredClaims
	Email string `json:"email"`
	Plan  string `json:"plan"`
	// KeyID is set in the short-lived tokens identity mints for an API key: the key's id.
	KeyID string `json:"akid,omitempty"`
}

// JWK is one public key in the RFC 8037 OKP form used for Ed25519.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Kid string `json:"kid"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
}

// JWKS is the document served at identity's /api/auth/jwks.json.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// PublicJWK describes an Ed25519 public key for publication under kid.
func PublicJWK(kid string, pub ed25519.PublicKey) JWK {
	return JWK{
		Kty: "OKP",
		Crv: "Ed25519",
		X:   base64.RawURLEncoding.EncodeToString(pub),
		Kid: kid,
		Use: "sig",
		Alg: Algorithm,
	}
}

// PublicKey returns the Ed25519 key k describes, or an error if k is not a usable Ed25519
// signing key.
func (k JWK) PublicKey() (ed25519.PublicKey, error) {
	switch {
	case k.Kid == "":
		return nil, fmt.Errorf("jwk has no kid")
	case k.Kty != "OKP" || k.Crv != "Ed25519":
		return nil, fmt.Errorf("jwk %q: kty %q crv %q is not OKP Ed25519", k.Kid, k.Kty, k.Crv)
	case k.Use != "" && k.Use != "sig":
		return nil, fmt.Errorf("jwk %q: use %q is not sig", k.Kid, k.Use)
	case k.Alg != "" && k.Alg != Algorithm:
		return nil, fmt.Errorf("jwk %q: alg %q is not %s", k.Kid, k.Alg, Algorithm)
	}
	x, err := base64.RawURLEncoding.DecodeString(k.X)
	if err != nil {
		return nil, fmt.Errorf("jwk %q: x is not base64url: %w", k.Kid, err)
	}
	if len(x) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("jwk %q: x has %d bytes, want %d", k.Kid, len(x), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(x), nil
}

// PublicKeys returns the usable Ed25519 signing keys of s by kid. Keys of other types are
// skipped, since a JWKS may carry keys meant for others; it is an error if none is left.
func (s JWKS) PublicKeys() (map[string]ed25519.PublicKey, error) {
	keys := make(map[string]ed25519.PublicKey, len(s.Keys))
	var firstErr error
	for _, k := range s.Keys {
		pub, err := k.PublicKey()
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if _, dup := keys[k.Kid]; dup {
			return nil, fmt.Errorf("jwks has kid %q twice", k.Kid)
		}
		keys[k.Kid] = pub
	}
	if len(keys) == 0 {
		if firstErr != nil {
			return nil, fmt.Errorf("jwks has no usable Ed25519 signing key: %w", firstErr)
		}
		return nil, fmt.Errorf("jwks has no keys")
	}
	return keys, nil
}
