package httpx

import "net/http"

// PublicCORS opens a public, read-only route to pages on any origin (the Fetch standard's CORS):
// any origin, no credentials, so a browser sends no cookie or token and reads only what anyone
// may. It answers the preflight itself, before rate limits, and exposes the headers a page needs
// for caching and back-off. Authenticated routes never get it (docs/decisions.md, "CORS").
func PublicCORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			h.Set("Allow", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Methods", "GET, HEAD")
			h.Set("Access-Control-Allow-Headers", "If-None-Match, API-Version")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", "API-Version, ETag, Retry-After, RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset")
		next.ServeHTTP(w, r)
	})
}
