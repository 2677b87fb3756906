package httpx

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
)

// Recover turns a panic in a handler into a logged 500 envelope instead of a dropped connection.
func Recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if err, ok := rec.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(rec) // the server's own signal to abort the response; let it through
			}
			slog.ErrorContext(r.Context(), "handler panicked", "panic", fmt.Sprint(rec), "stack", string(debug.Stack()))
			Fail(w, r, errors.New("handler panic"))
		}()
		next.ServeHTTP(w, r)
	})
}

// SecurityHeaders sets headers every API response should carry. TLS ends at the ingress, which
// also sets HSTS; setting it here too keeps it when a service is reached another way.
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
