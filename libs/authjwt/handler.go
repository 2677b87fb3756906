package authjwt

import (
	"net/http"

	"github.com/bizassist/bizassist/libs/httpx"
)

// Handler is a route of an authenticated caller that returns its error for httpx.Fail to answer.
// A request without a caller (a route wired without the middleware) is RequireCaller's 401.
type Handler func(w http.ResponseWriter, r *http.Request, c Caller) error

// ServeHTTP runs f with the request's caller and answers any error with httpx.Fail.
func (f Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpx.Handler(func(w http.ResponseWriter, r *http.Request) error {
		c, err := RequireCaller(r.Context())
		if err != nil {
			return err
		}
		return f(w, r, c)
	}).ServeHTTP(w, r)
}

// SignedIn is f for the routes that manage credentials (API keys, the inbound webhook secret): a
// credential made with an API key would outlive that key's deletion, so only a caller who signed
// in, not one presenting a key, may manage them; a key is refused with ErrAPIKeyNotAllowed.
func SignedIn(f Handler) Handler {
	return func(w http.ResponseWriter, r *http.Request, c Caller) error {
		if c.KeyID != "" {
			return ErrAPIKeyNotAllowed
		}
		return f(w, r, c)
	}
}

// JSON is a Handler of a JSON request body, decoded by httpx.Decode with maxBytes after the
// caller is known: a request without one is 401 whatever its body.
func JSON[T any](maxBytes int64, f func(w http.ResponseWriter, r *http.Request, c Caller, req T) error) Handler {
	return func(w http.ResponseWriter, r *http.Request, c Caller) error {
		return httpx.JSON(maxBytes, func(w http.ResponseWriter, r *http.Request, req T) error {
			return f(w, r, c, req)
		})(w, r)
	}
}
