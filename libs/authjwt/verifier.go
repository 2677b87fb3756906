package authjwt

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/credential"
)

// CodeAuthUnavailable is the code of the 503 returned when the signing keys cannot be fetched.
const CodeAuthUnavailable = "auth_unavailable"

// maxTokenBytes bounds the work an absurd token can cause; real tokens are well under 1 KiB.
const maxTokenBytes = 8 << 10

var (
	errUnavailable = apperr.Unavailable(CodeAuthUnavailable, "authentication is temporarily unavailable")
	errUnknownKey  = invalidToken("token signing key is not known")
	errMissingKID  = invalidToken("token header has no key id (kid)")
)

func invalidToken(msg string) *apperr.Error {
	return apperr.Unauthenticated(apperr.CodeInvalidToken, msg)
}

// MaxTokenLifetime is the longest exp - iat a token may have: identity's sessions last 24 hours,
// and a revocation is remembered only that long.
const MaxTokenLifetime = 24 * time.Hour

// Caller is the authenticated account a request acts for; it is credential's, which app code
// may import (no I/O).
type Caller = credential.Caller

// Verifier checks access tokens against identity's published keys. It is safe for concurrent use.
type Verifier struct {
	keys     *keyCache
	parser   *jwt.Parser
	verified *verifiedCache
	revoked  *revocations
	apiKeys  *apiKeyCache
	leeway   time.Duration
	now      func() time.Time
}

// NewVerifier returns a verifier for cfg. Keys are fetched on first use, not here, so a service
// can start before identity does.
func NewVerifier(cfg Config) (*Verifier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newVerifier(cfg, time.Now)
}

func newVerifier(cfg Config, now func() time.Time) (*Verifier, error) {
	client := &http.Client{Timeout: cfg.HTTPTimeout}
	exchanger, err := newHTTPExchanger(cfg.JWKSURL, client)
	if err != nil {
		return nil, err
	}
	return &Verifier{
		keys: &keyCache{
			url:         cfg.JWKSURL,
			client:      client,
			minInterval: cfg.MinRefreshInterval,
			maxAge:      cfg.MaxKeyAge,
			now:         now,
		},
		verified: newVerifiedCache(cfg.VerifiedCacheSize, cfg.VerifiedCacheTTL),
		revoked:  newRevocations(),
		apiKeys:  newAPIKeyCache(exchanger, cfg.VerifiedCacheSize),
		leeway:   cfg.Leeway,
		now:      now,
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{Algorithm}),
			jwt.WithExpirationRequired(),
			jwt.WithIssuer(cfg.Issuer),
			jwt.WithAudience(cfg.Audience),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(cfg.Leeway),
			jwt.WithTimeFunc(now),
		),
	}, nil
}

// Verify checks token and returns its caller. Failures are Unauthenticated with code
// invalid_token and a message saying what is wrong, or Unavailable (auth_unavailable) when the
// key the token names could not be fetched. A remembered token is checked against the
// revocations too, on every call.
func (v *Verifier) Verify(ctx context.Context, token string) (Caller, error) {
	c, err := v.verify(ctx, token)
	if err != nil {
		return Caller{}, err
	}
	if err := v.revoked.check(c); err != nil {
		return Caller{}, err
	}
	return c, nil
}

func (v *Verifier) verify(ctx context.Context, token string) (Caller, error) {
	if len(token) > maxTokenBytes {
		return Caller{}, invalidToken("token is too long")
	}
	now := v.now()
	if e, ok := v.verified.get(token, now); ok {
		if _, published := v.keys.current(ctx, e.kid); published {
			return e.caller, nil
		}
	}
	var (
		claims Claims
		kid    string
	)
	parsed, err := v.parser.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		kid, _ = t.Header["kid"].(string)
		if kid == "" {
			return nil, errMissingKID
		}
		return v.keys.key(ctx, kid)
	})
	if err != nil {
		return Caller{}, verifyError(parsed, &claims, err)
	}
	if claims.Subject == "" {
		return Caller{}, invalidToken("token has no subject (sub)")
	}
	if claims.IssuedAt == nil {
		return Caller{}, invalidToken("token has no issue time (iat)")
	}
	if claims.ExpiresAt.Sub(claims.IssuedAt.Time) > MaxTokenLifetime {
		return Caller{}, invalidToken("token lifetime exceeds 24 hours")
	}
	c := Caller{
		AccountID: claims.Subject,
		Email:     claims.Email,
		Plan:      claims.Plan,
		TokenID:   claims.ID,
		KeyID:     claims.KeyID,
		IssuedAt:  claims.IssuedAt.Time,
		ExpiresAt: claims.ExpiresAt.Time,
		Token:     token,
	}
	v.verified.add(token, kid, c, now)
	return c, nil
}

// verifyError turns a parse failure into the error the client sees. The order matters: the
// algorithm is judged before the signature, and a key lookup failure keeps its own error.
func verifyError(t *jwt.Token, claims *Claims, err error) error {
	var appErr *apperr.Error
	switch {
	case errors.As(err, &appErr):
		return appErr
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, jwt.ErrTokenMalformed) || t == nil:
		return invalidToken("token is malformed").Wrap(err)
	case t.Header["alg"] != Algorithm:
		return invalidToken("token algorithm is not allowed")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return invalidToken("token signature is invalid")
	case errors.Is(err, jwt.ErrTokenExpired):
		return invalidToken("token has expired")
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return invalidToken("token is not valid yet")
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return invalidToken("token is issued in the future")
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return invalidToken("token issuer is not accepted")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return invalidToken("token audience is not accepted")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && claims.ExpiresAt == nil:
		return invalidToken("token has no expiry (exp)")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && claims.Issuer == "":
		return invalidToken("token has no issuer (iss)")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && len(claims.Audience) == 0:
		return invalidToken("token has no audience (aud)")
	default:
		return invalidToken("token is invalid").Wrap(err)
	}
}
