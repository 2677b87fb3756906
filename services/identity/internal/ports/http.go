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
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/ratelimit"
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
	App      app.Application
	Keys     JWKSProvider
	ClientIP func(*http.Request) netip.Addr
	Now      app.Clock
}

// signUpPolicy throttles registration per client address: a few accounts an hour is plenty for
// people and little for a script.
var signUpPolicy = ratelimit.Policy{Name: "signup", Rate: 5, Period: time.Hour}

// Routes registers identity's routes on r: the general API limit on all, the stricter limits of
// sign-up and of password attempts, authentication, and Idempotency-Key on what creates.
func (h *HTTP) Routes(r *mux.Router, mw platform.Middleware) {
	apiLimit, attempts := mw.Limit(ratelimit.API), mw.Limit(ratelimit.Login)
	api := r.PathPrefix("/api/auth").Subrouter()
	api.Use(apiLimit)
	api.Handle("", httpx.JSON(maxAuthBody, h.auth)).Methods(http.MethodPost)
	api.Handle("/password", mw.Authenticated(attempts(authjwt.JSON(maxFormBody, h.changePassword)))).Methods(http.MethodPost)
	r.Handle("/api/accounts", apiLimit(mw.Limit(signUpPolicy)(httpx.JSON(maxFormBody, h.signUp)))).Methods(http.MethodPost)
	r.Handle("/api/invitations/accept", apiLimit(attempts(httpx.JSON(maxFormBody, h.acceptInvitation)))).Methods(http.MethodPost)

	authed := r.NewRoute().Subrouter()
	authed.Use(apiLimit, mw.Authenticated)
	authed.Handle("/api/keys", mw.Idempotent(authjwt.SignedIn(authjwt.JSON(maxFormBody, h.createKey)))).Methods(http.MethodPost)
	authed.Handle("/api/keys", authjwt.Handler(h.listKeys)).Methods(http.MethodGet)
	authed.Handle("/api/keys/{id}", authjwt.SignedIn(h.deleteKey)).Methods(http.MethodDelete)
	authed.Handle("/api/clients", mw.Idempotent(authjwt.JSON(maxFormBody, h.inviteClient))).Methods(http.MethodPost)
	authed.Handle("/api/clients", authjwt.Handler(h.listClients)).Methods(http.MethodGet)

	// Verifiers trade API keys for short-lived tokens here; the ingress never routes /internal.
	r.Handle(authjwt.APIKeyTokenPath, httpx.Handler(h.exchangeKey)).Methods(http.MethodPost)
	r.Handle("/api/auth/jwks.json", httpx.PublicCORS(httpx.Handler(h.jwks))).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
	// The merged API reference of every service; identity serves it because it is always deployed.
	r.Handle("/api/openapi.json", httpx.PublicCORS(apiLimit(apidocs.JSON()))).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
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
func (h *HTTP) auth(w http.ResponseWriter, r *http.Request, req authRequest) error {
	if req.Action != nil {
		return h.verify(w, r, req)
	}
	res, err := h.App.Login.Handle(r.Context(), app.LoginCommand{
		Email: deref(req.Email), Password: deref(req.Password), ClientIP: h.ClientIP(r),
	})
	if err != nil {
		return err
	}
	httpx.Respond(w, http.StatusOK, loginResponse{Token: res.Token, Email: res.Email, Plan: string(res.Plan)})
	return nil
}

func (h *HTTP) verify(w http.ResponseWriter, r *http.Request, req authRequest) error {
	if *req.Action != "verify" {
		return apperr.InvalidField("action", `must be "verify"`)
	}
	if req.Email != nil || req.Password != nil {
		return apperr.Invalid("unexpected_credentials", `email and password are not accepted with action "verify"`)
	}
	token, err := authjwt.Credential(r)
	if err == nil {
		var res app.VerifyResult
		if res, err = h.App.Verify.Handle(r.Context(), token); err == nil {
			httpx.Respond(w, http.StatusOK, verifyResponse{Valid: true, Email: res.Email,
				Plan: string(res.Plan), ExpiresAt: httpx.Time(res.ExpiresAt)})
			return nil
		}
	}
	var appErr *apperr.Error
	if errors.As(err, &appErr) && appErr.Kind == apperr.KindUnauthenticated {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		err = appErr.With("valid", false)
	}
	return err
}

func (h *HTTP) jwks(w http.ResponseWriter, r *http.Request) error {
	set, err := h.Keys.JWKS(r.Context(), h.Now())
	if err != nil {
		return err
	}
	// Verifiers refetch at this max-age, so a withdrawn key stops verifying within a minute.
	w.Header().Set("Cache-Control", "public, max-age=60")
	httpx.Respond(w, http.StatusOK, set)
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
