// Package ports is identity's inbound side: the HTTP routes and the event handlers.
package ports

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"time"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/libs/apidocs"
	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/services/identity/internal/app"
)

// maxAuthBody bounds POST /api/auth: credentials are small, so anything larger is a mistake.
const maxAuthBody = 4 << 10

// JWKSProvider returns the published signing keys.
type JWKSProvider interface {
	JWKS(ctx context.Context, now time.Time) (authjwt.JWKS, error)
}

// HTTP serves identity's routes.
type HTTP struct {
	Login    *app.Login
	Verify   *app.VerifyToken
	Keys     JWKSProvider
	ClientIP func(*http.Request) netip.Addr
	Now      app.Clock
}

// Routes registers identity's routes on r; mw wraps the API routes (rate limit, telemetry).
func (h *HTTP) Routes(r *mux.Router, apiLimit mux.MiddlewareFunc) {
	api := r.PathPrefix("/api/auth").Subrouter()
	api.Use(apiLimit)
	api.HandleFunc("", h.auth).Methods(http.MethodPost)
	r.HandleFunc("/api/auth/jwks.json", h.jwks).Methods(http.MethodGet)
	// The merged API reference of every service; identity serves it because it is always deployed.
	r.Handle("/api/openapi.json", apiLimit(apidocs.JSON())).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/api/openapi", apiLimit(apidocs.Page())).Methods(http.MethodGet, http.MethodHead)
}

type authRequest struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
	Action   *string `json:"action"`
}

type loginResponse struct {
	Token string `json:"token"`
	Email string `json:"email"`
	Plan  string `json:"plan"`
}

type verifyResponse struct {
	Valid     bool       `json:"valid"`
	Email     string     `json:"email"`
	Plan      string     `json:"plan"`
	ExpiresAt httpx.Time `json:"expiresAt"`
}

// auth serves both operations of POST /api/auth: action "verify" checks the bearer token,
// otherwise the body's email and password are exchanged for a token.
func (h *HTTP) auth(w http.ResponseWriter, r *http.Request) {
	var req authRequest
	if err := httpx.Decode(w, r, &req, maxAuthBody); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if req.Action != nil {
		h.verify(w, r, req)
		return
	}
	res, err := h.Login.Handle(r.Context(), app.LoginCommand{
		Email: deref(req.Email), Password: deref(req.Password), ClientIP: h.ClientIP(r),
	})
	if err != nil {
		httpx.Fail(w, r, err)
		return
	}
	httpx.Respond(w, http.StatusOK, loginResponse{Token: res.Token, Email: res.Email, Plan: string(res.Plan)})
}

func (h *HTTP) verify(w http.ResponseWriter, r *http.Request, req authRequest) {
	if *req.Action != "verify" {
		httpx.Fail(w, r, apperr.InvalidField("action", `must be "verify"`))
		return
	}
	if req.Email != nil || req.Password != nil {
		httpx.Fail(w, r, apperr.Invalid("unexpected_credentials", `email and password are not accepted with action "verify"`))
		return
	}
	token, err := authjwt.BearerToken(r)
	if err == nil {
		var res app.VerifyResult
		if res, err = h.Verify.Handle(r.Context(), token); err == nil {
			httpx.Respond(w, http.StatusOK, verifyResponse{Valid: true, Email: res.Email,
				Plan: string(res.Plan), ExpiresAt: httpx.Time(res.ExpiresAt)})
			return
		}
	}
	var appErr *apperr.Error
	if errors.As(err, &appErr) && appErr.Kind == apperr.KindUnauthenticated {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		err = appErr.With("valid", false)
	}
	httpx.Fail(w, r, err)
}

func (h *HTTP) jwks(w http.ResponseWriter, r *http.Request) {
	set, err := h.Keys.JWKS(r.Context(), h.Now())
	if err != nil {
		httpx.Fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	httpx.Respond(w, http.StatusOK, set)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
