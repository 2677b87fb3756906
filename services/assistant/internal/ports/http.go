// Package ports is the assistant's inbound transport: HTTP routes and event consumers. It is the
// only package that knows gorilla/mux.
package ports

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
)

// Body limits: a chat body holds up to 4,000 characters (16 KB in UTF-8) and a 4 KB context.
const (
	maxChatBody = 24 << 10
	maxSeedBody = 256 << 10
)

// AdminHeader carries the agent-brain administrator secret.
const AdminHeader = "x-agent-admin"

// HTTP holds the use cases the routes call.
type HTTP struct {
	App         app.Application
	AdminSecret string
}

// Routes registers the assistant's routes on r. Rate limits come first so that unauthenticated
// floods are limited too.
func (h *HTTP) Routes(r *mux.Router, mw platform.Middleware) {
	apiLimit := mw.Limit(ratelimit.API)
	r.Handle("/api/chat", apiLimit(mw.Authenticated(mw.Idempotent(authjwt.JSON(maxChatBody, h.chat))))).Methods(http.MethodPost)
	r.Handle("/api/agent-brain-seed", apiLimit(h.admin(httpx.JSON(maxSeedBody, h.seed)))).Methods(http.MethodPost)
	r.Handle("/api/agent-brain-public-feed", httpx.PublicCORS(mw.Limit(ratelimit.Feed)(httpx.Handler(h.feed)))).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
}

type chatRequest struct {
	Message   *string         `json:"message"`
	SessionID *string         `json:"sessionId"`
	Context   json.RawMessage `json:"context"`
}

func (h *HTTP) chat(w http.ResponseWriter, r *http.Request, caller authjwt.Caller, body chatRequest) error {
	if body.Message == nil {
		return apperr.MissingField("message")
	}
	var sessionID string
	if body.SessionID != nil {
		if sessionID = *body.SessionID; sessionID == "" {
			// Absent starts a session; "" was read as absent, so a client's lost id went unnoticed.
			return apperr.InvalidField("sessionId", "must not be empty; leave it out to start a new session")
		}
	}
	res, err := h.App.Chat.Handle(r.Context(), app.ChatCommand{
		AccountID: caller.AccountID, Plan: caller.Plan, Token: caller.Token,
		Message: *body.Message, SessionID: sessionID, Context: body.Context,
	})
	if err != nil {
		return err
	}
	httpx.Respond(w, http.StatusOK, res)
	return nil
}

type seedRequest struct {
	Events []app.SeedEvent `json:"events"`
}

func (h *HTTP) seed(w http.ResponseWriter, r *http.Request, body seedRequest) error {
	n, err := h.App.Seed.Handle(r.Context(), body.Events)
	if err != nil {
		return err
	}
	httpx.Respond(w, http.StatusCreated, struct {
		Inserted int `json:"inserted"`
	}{n})
	return nil
}

// admin lets through only a request with the administrator secret, checked before the body is
// read and in constant time; hashing first makes the comparison independent of the secret's
// length too.
func (h *HTTP) admin(next http.Handler) httpx.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		given := r.Header.Get(AdminHeader)
		switch {
		case h.AdminSecret == "":
			return apperr.Forbidden("seed_disabled", "agent-brain seeding is disabled: AGENT_ADMIN_SECRET is not set")
		case given == "":
			return apperr.Unauthenticated("admin_required", "the x-agent-admin header is required")
		}
		g, want := sha256.Sum256([]byte(given)), sha256.Sum256([]byte(h.AdminSecret))
		if subtle.ConstantTimeCompare(g[:], want[:]) != 1 {
			return apperr.Forbidden("admin_forbidden", "the x-agent-admin header is not valid")
		}
		next.ServeHTTP(w, r)
		return nil
	}
}

func (h *HTTP) feed(w http.ResponseWriter, r *http.Request) error {
	body, err := h.App.Feed.Handle(r.Context())
	if err != nil {
		return err
	}
	httpx.RespondPublic(w, r, time.Minute, body)
	return nil
}
