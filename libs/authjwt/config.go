// Package authjwt verifies the access tokens identity issues: EdDSA (Ed25519) JWTs whose public
// keys identity publishes as a JWKS. Every service but identity imports it to authenticate
// callers; identity imports only its Claims and JWK types to mint and publish. Verification pins
// the algorithm, requires exp, iss, aud, sub and a kid, and never fails open: when the key a
// token names cannot be fetched and is not cached, the caller gets 503, not access.
package authjwt

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/bizassist/bizassist/libs/setting"
)

// Algorithm is the only JWS algorithm identity signs with and verifiers accept.
const Algorithm = "EdDSA"

// Config says where the signing keys are published and which tokens are meant for us.
type Config struct {
	JWKSURL  string `env:"JWT_JWKS_URL,required"`
	Issuer   string `env:"JWT_ISSUER" envDefault:"bizassist-identity"`
	Audience string `env:"JWT_AUDIENCE" envDefault:"bizassist-api"`
	// MinRefreshInterval bounds how often unknown key ids can make us fetch the JWKS again, so
	// a flood of forged kids cannot turn into a flood of requests to identity.
	MinRefreshInterval time.Duration `env:"JWT_JWKS_MIN_REFRESH" envDefault:"30s"`
	HTTPTimeout        time.Duration `env:"JWT_JWKS_TIMEOUT" envDefault:"5s"`
	// MaxKeyAge is the longest a fetched JWKS is used before it is fetched again; the JWKS's own
	// Cache-Control max-age may shorten it (never below MinRefreshInterval).
	MaxKeyAge time.Duration `env:"JWT_JWKS_MAX_AGE" envDefault:"5m"`
	// Leeway absorbs clock skew between identity and this service on exp, nbf and iat.
	Leeway time.Duration `env:"JWT_LEEWAY" envDefault:"30s"`
	// VerifiedCacheSize is how many verified tokens are remembered so that a token seen again
	// skips the signature check (0 turns the cache off); VerifiedCacheTTL bounds how long.
	VerifiedCacheSize int           `env:"JWT_VERIFIED_CACHE_SIZE" envDefault:"10000"`
	VerifiedCacheTTL  time.Duration `env:"JWT_VERIFIED_CACHE_TTL" envDefault:"5m"`
}

// Validate reports a config that cannot work.
func (c Config) Validate() error {
	u, err := url.Parse(c.JWKSURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("JWT_JWKS_URL %q must be an absolute http(s) URL", c.JWKSURL)
	}
	if c.Issuer == "" {
		return errors.New("JWT_ISSUER must not be empty")
	}
	if c.Audience == "" {
		return errors.New("JWT_AUDIENCE must not be empty")
	}
	var ttl error // the cache's lifetime matters only with a cache
	if c.VerifiedCacheSize > 0 {
		ttl = setting.Positive("JWT_VERIFIED_CACHE_TTL", c.VerifiedCacheTTL)
	}
	return errors.Join(setting.Positive("JWT_JWKS_MIN_REFRESH", c.MinRefreshInterval), setting.Positive("JWT_JWKS_TIMEOUT", c.HTTPTimeout),
		setting.Positive("JWT_JWKS_MAX_AGE", c.MaxKeyAge), setting.NotNegative("JWT_LEEWAY", c.Leeway),
		setting.NotNegative("JWT_VERIFIED_CACHE_SIZE", c.VerifiedCacheSize), ttl)
}
