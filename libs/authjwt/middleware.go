package authjwt

import (
	"context"
	"net/http"
	"strings"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/credential"
	"github.com/bizassist/bizassist/libs/httpx"
)

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller the middleware put in ctx.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// RequireCaller returns the caller in ctx, or the 401 error a handler answers with when a route
// was wired without the middleware.
func RequireCaller(ctx context.Context) (Caller, error) {
	c, ok := CallerFrom(ctx)
	if !ok {
		return Caller{}, apperr.Unauthenticated(apperr.CodeUnauthenticated, "authentication required")
	}
	return c, nil
}

// ErrAPIKeyNotAllowed refuses an API key where credentials are made or removed.
var ErrAPIKeyNotAllowed = apperr.Forbidden("api_key_not_allowed",
	"API keys cannot create, delete or rotate credentials; sign in (POST /api/auth) and use its token")

// BearerToken returns the token of the request's "Authorization: Bearer <token>" header.
func BearerToken(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", apperr.Unauthenticated(apperr.CodeUnauthenticated, "missing Authorization header")
	}
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", apperr.Unauthenticated(apperr.CodeUnauthenticated, "Authorization header must be 'Bearer <token>'")
	}
	return token, nil
}

// APIKeyHeader is the header an API key may be sent in instead of Authorization: Bearer.
const APIKeyHeader = "X-API-Key" //nolint:gosec // a header name, not a credential

// Credential returns what the request authenticates with: the X-API-Key header when present,
// otherwise the bearer token (an access token or an API key).
func Credential(r *http.Request) (string, error) {
	if k := r.Header.Get(APIKeyHeader); k != "" {
		return strings.TrimSpace(k), nil
	}
	return BearerToken(r)
}

// Authenticate returns the caller of cred: an API key (bza_...) or an access token.
func (v *Verifier) Authenticate(ctx context.Context, cred string) (Caller, error) {
	if strings.HasPrefix(cred, credential.APIKeyPrefix) {
		return v.VerifyAPIKey(ctx, cred)
	}
	return v.Verify(ctx, cred)
}

// Middleware lets a request through only with a valid access token or API key, and puts its
// caller in the request context. It has the shape of a gorilla/mux MiddlewareFunc.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cred, err := Credential(r)
		if err == nil {
			var c Caller
			if c, err = v.Authenticate(r.Context(), cred); err == nil {
				next.ServeHTTP(w, r.WithContext(WithCaller(r.Context(), c)))
				return
			}
		}
		if apperr.KindOf(err) == apperr.KindUnauthenticated {
			w.Header().Set("WWW-Authenticate", challenge(err))
		}
		httpx.Fail(w, r, err)
	})
}

// challenge follows RFC 6750 §3: no error attribute when no credentials were sent.
func challenge(err error) string {
	if apperr.CodeOf(err) == apperr.CodeInvalidToken {
		return `Bearer error="invalid_token"`
	}
	return "Bearer"
}
