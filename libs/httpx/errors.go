package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/pgkit"
)

// UnavailableRetryAfter is the Retry-After, in seconds, of a 503 for an unreachable database:
// about how long a PostgreSQL restart or failover takes.
const UnavailableRetryAfter = 2

// StatusClientClosedRequest is the de-facto status for a request the client abandoned.
const StatusClientClosedRequest = 499

// Fail is the one error mapper: it turns any error into the error envelope
// {ok:false, error, code[, field][, details...]} with the status its kind implies. An error
// carrying a retryAfter detail (whole seconds; a 429, or a 503 that knows when room frees) also
// sets the Retry-After header. An error that is not a kind of the application's and says the
// database could not be reached (pgkit.Unavailable: a restart, a refused or cut connection) is
// 503 unavailable with Retry-After, since the same request may succeed in a moment. Other
// internal errors are logged with their cause and shown to the client only as "internal error".
func Fail(w http.ResponseWriter, r *http.Request, err error) {
	status, body := errorBody(err)
	if ra, ok := body["retryAfter"].(int); ok {
		w.Header().Set("Retry-After", strconv.Itoa(ra))
	}
	switch {
	case status == http.StatusServiceUnavailable:
		// A dependency down or a budget full: expected under load, and one line per refusal.
		slog.WarnContext(r.Context(), "request refused", "error", err, "method", r.Method, "path", r.URL.Path, "status", status)
	case status >= 500:
		slog.ErrorContext(r.Context(), "request failed", "error", err, "method", r.Method, "path", r.URL.Path, "status", status)
	}
	payload, mErr := json.Marshal(body)
	if mErr != nil {
		payload = []byte(`{"ok":false,"error":"internal error","code":"internal"}`)
		status = http.StatusInternalServerError
	}
	writeRaw(w, status, append(payload, '\n'))
}

func errorBody(err error) (int, map[string]any) {
	var (
		appErr   *apperr.Error
		tooLarge *http.MaxBytesError
	)
	switch {
	case apperr.KindOf(err) == apperr.KindInternal && pgkit.Unavailable(err):
		body := envelope(apperr.CodeUnavailable, "the database is unavailable; retry shortly")
		body["retryAfter"] = UnavailableRetryAfter
		return http.StatusServiceUnavailable, body
	case errors.As(err, &appErr):
		body := make(map[string]any, 4+len(appErr.Details))
		for k, v := range appErr.Details {
			body[k] = v
		}
		body["ok"] = false
		body["code"] = appErr.Code
		if appErr.Kind == apperr.KindInternal {
			body["error"] = "internal error"
		} else {
			body["error"] = appErr.Message
		}
		if appErr.Field != "" {
			body["field"] = appErr.Field
		}
		return StatusOf(appErr.Kind), body
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, envelope(apperr.CodeBodyTooLarge, "request body is too large")
	case errors.Is(err, context.Canceled):
		return StatusClientClosedRequest, envelope("canceled", "request canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, envelope("timeout", "the request took too long")
	default:
		return http.StatusInternalServerError, envelope(apperr.CodeInternal, "internal error")
	}
}

func envelope(code, message string) map[string]any {
	return map[string]any{"ok": false, "error": message, "code": code}
}

// StatusOf maps an error kind to its HTTP status.
func StatusOf(k apperr.Kind) int {
	switch k {
	case apperr.KindInvalid:
		return http.StatusBadRequest
	case apperr.KindUnauthenticated:
		return http.StatusUnauthorized
	case apperr.KindForbidden:
		return http.StatusForbidden
	case apperr.KindNotFound:
		return http.StatusNotFound
	case apperr.KindConflict:
		return http.StatusConflict
	case apperr.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case apperr.KindRateLimited:
		return http.StatusTooManyRequests
	case apperr.KindQuotaExceeded:
		return http.StatusPaymentRequired
	case apperr.KindUnavailable:
		return http.StatusServiceUnavailable
	case apperr.KindUnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case apperr.KindMethodNotAllowed:
		return http.StatusMethodNotAllowed
	default:
		return http.StatusInternalServerError
	}
}

// KindOf is the kind a status means, StatusOf read backwards: how a client of the API classifies a
// refusal. A status no kind maps to is KindInternal.
func KindOf(status int) apperr.Kind {
	for k := apperr.KindInvalid; k <= apperr.KindMethodNotAllowed; k++ {
		if StatusOf(k) == status {
			return k
		}
	}
	return apperr.KindInternal
}

// NotFoundHandler answers an unknown route with the envelope.
func NotFoundHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no route for "+r.Method+" "+r.URL.Path))
	})
}
