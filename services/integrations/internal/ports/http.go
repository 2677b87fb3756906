// Package ports is the inbound side of integrations, each entry a thin caller of one use case:
// HTTP routes, event consumer handlers, and the two drivers of delivery attempts, the in-process
// Dispatcher of first attempts and the River workers of queued jobs (both call app.Deliver, and
// share one account's share of the workers, AccountSlots). It is the only package importing
// gorilla/mux.
package ports

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"time"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/idempotency"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Body limits: inbound events are a handful of short strings; Stripe events can be larger.
const (
	maxInboundBody = 32 << 10
	maxRequestBody = 8 << 10
	maxStripeBody  = 512 << 10
)

// HTTP serves the integrations routes.
type HTTP struct {
	App      app.Application
	Payments *StripeWebhook
	// ClientIP is the client address of a request as the rate limiter reads it.
	ClientIP func(*http.Request) netip.Addr
}

// Routes registers every route on r: the per-IP API rate limit on all but the inbound webhook
// (metered per account by its secret, and per IP only when the secret fails: app.InboundThrottle),
// authentication on the caller's routes, Idempotency-Key on what creates or sends.
func (h *HTTP) Routes(r *mux.Router, mw platform.Middleware) {
	limited := mw.Limit(ratelimit.API)
	protect := func(f authjwt.Handler) http.Handler { return limited(mw.Authenticated(f)) }
	effect := func(f authjwt.Handler) http.Handler { return limited(mw.Authenticated(mw.Idempotent(f))) }
	r.Handle("/api/ext-webhook", httpx.JSON(maxInboundBody, h.receiveInbound)).Methods(http.MethodPost)
	r.Handle("/api/ext-webhook/sample", httpx.PublicCORS(http.HandlerFunc(h.samples))).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
	r.Handle("/api/ext-webhook/subscribe", effect(authjwt.JSON(maxRequestBody, h.subscribe))).Methods(http.MethodPost)
	r.Handle("/api/ext-webhook/subscriptions", protect(h.listSubscriptions)).Methods(http.MethodGet)
	r.Handle("/api/ext-webhook/subscriptions/{id}", protect(h.unsubscribe)).Methods(http.MethodDelete)
	r.Handle("/api/ext-webhook/subscriptions/{id}/deliveries", protect(h.attempts)).Methods(http.MethodGet)
	r.Handle("/api/ext-webhook/deliveries/{id}/replay", effect(h.replay)).Methods(http.MethodPost)
	r.Handle("/api/ext-webhook/secret/rotate", effect(authjwt.SignedIn(h.rotateSecret))).Methods(http.MethodPost)
	// Stripe sends from its own addresses: the general policy keys it by that sender IP, and
	// Stripe retries what we refuse with a 429.
	r.Handle("/api/payments/stripe/webhook", limited(h.Payments)).Methods(http.MethodPost)
}

func (h *HTTP) receiveInbound(w http.ResponseWriter, r *http.Request, body map[string]json.RawMessage) error {
	res, err := h.App.ReceiveInbound.Handle(r.Context(), app.ReceiveInboundCmd{
		Secret: r.Header.Get("X-Ext-Secret"), IdempotencyKey: r.Header.Get("Idempotency-Key"), WebhookID: r.Header.Get("webhook-id"),
		Body: body, ClientIP: h.ClientIP(r),
	})
	if err != nil {
		return err
	}
	var changed *[]string
	if res.Merged {
		changed = &res.Changed
	}
	warnings := make([]warningJSON, len(res.Warnings))
	for i, wn := range res.Warnings {
		warnings[i] = warningJSON(wn)
	}
	httpx.Respond(w, http.StatusOK, inboundResponse{
		Event: string(res.Event), Processed: !res.Duplicate, ServiceID: res.ID, Duplicate: res.Duplicate, Merged: res.Merged,
		Changed: changed, Warnings: warnings,
	})
	return nil
}

type inboundResponse struct {
	Event     string `json:"event"`
	Processed bool   `json:"processed"`
	ServiceID string `json:"serviceId"`
	Duplicate bool   `json:"duplicate"`
	Merged    bool   `json:"merged"`
	// Changed is omitted unless merged: the fields the repeat changes.
	Changed *[]string `json:"changed,omitempty"`
	// Warnings is omitted when empty, so a reply without one is the spec's shape.
	Warnings []warningJSON `json:"warnings,omitempty"`
}

type warningJSON struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (h *HTTP) samples(w http.ResponseWriter, _ *http.Request) {
	samples := make(map[string]map[string]string, 3)
	for _, e := range domain.InboundEvents() {
		samples[string(e)] = domain.Sample(e)
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	httpx.Respond(w, http.StatusOK, map[string]any{"samples": samples})
}

type subscribeRequest struct {
	HookURL *string `json:"hookUrl"`
	Event   *string `json:"event"`
}

func (h *HTTP) subscribe(w http.ResponseWriter, r *http.Request, c authjwt.Caller, req subscribeRequest) error {
	if req.HookURL == nil {
		return apperr.MissingField("hookUrl")
	}
	if req.Event == nil {
		return apperr.MissingField("event")
	}
	sub, created, err := h.App.Hooks.Subscribe(r.Context(), c.AccountID, *req.HookURL, *req.Event)
	if err != nil {
		return err
	}
	if !created {
		// The secret was shown when the subscription was made; a bearer token alone must not
		// reveal the key that signs a live subscription's deliveries.
		httpx.Respond(w, http.StatusOK, struct {
			ID string `json:"id"`
			subscriptionView
		}{sub.ID(), viewOf(sub)})
		return nil
	}
	idempotency.ShownOnce(w, r, "secret")
	httpx.Respond(w, http.StatusCreated, struct {
		ID string `json:"id"`
		subscriptionView
		Secret string `json:"secret"`
	}{sub.ID(), viewOf(sub), sub.Secret()})
	return nil
}

type subscriptionView struct {
	HookURL      string     `json:"hookUrl"`
	Event        string     `json:"event"`
	Status       string     `json:"status"`
	CreatedAt    httpx.Time `json:"createdAt"`
	FailingSince httpx.Time `json:"failingSince"`
}

func viewOf(s domain.Subscription) subscriptionView {
	v := subscriptionView{HookURL: s.HookURL(), Event: s.Event(), Status: string(s.Status()), CreatedAt: httpx.Time(s.CreatedAt())}
	if fs := s.FailingSince(); fs != nil {
		v.FailingSince = httpx.Time(*fs)
	}
	return v
}

func (h *HTTP) listSubscriptions(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	subs, err := h.App.Hooks.List(r.Context(), c.AccountID)
	if err != nil {
		return err
	}
	type item struct {
		ID string `json:"id"`
		subscriptionView
	}
	items := make([]item, len(subs))
	for i, s := range subs {
		items[i] = item{s.ID(), viewOf(s)}
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"subscriptions": items})
	return nil
}

func (h *HTTP) unsubscribe(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	id := mux.Vars(r)["id"]
	if err := h.App.Hooks.Unsubscribe(r.Context(), c.AccountID, id); err != nil {
		return err
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
	return nil
}

func (h *HTTP) attempts(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	list, err := h.App.Hooks.Attempts(r.Context(), c.AccountID, mux.Vars(r)["id"])
	if err != nil {
		return err
	}
	type attempt struct {
		DeliveryID  string     `json:"deliveryId"`
		Event       string     `json:"event"`
		AttemptedAt httpx.Time `json:"attemptedAt"`
		StatusCode  *int       `json:"statusCode"`
		LatencyMS   int        `json:"latencyMs"`
		Error       *string    `json:"error"`
	}
	out := make([]attempt, len(list))
	for i, a := range list {
		out[i] = attempt{DeliveryID: a.DeliveryID, Event: a.Event, AttemptedAt: httpx.Time(a.AttemptedAt), LatencyMS: a.LatencyMS}
		if a.StatusCode != 0 {
			out[i].StatusCode = &a.StatusCode
		}
		if a.Error != "" {
			out[i].Error = &a.Error
		}
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"attempts": out})
	return nil
}

func (h *HTTP) replay(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	id := mux.Vars(r)["id"]
	if err := h.App.Hooks.Replay(r.Context(), c.AccountID, id); err != nil {
		return err
	}
	httpx.Respond(w, http.StatusAccepted, map[string]any{"deliveryId": id, "queued": true})
	return nil
}

func (h *HTTP) rotateSecret(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	secret, err := h.App.RotateSecret.Handle(r.Context(), c.AccountID)
	if err != nil {
		return err
	}
	idempotency.ShownOnce(w, r, "secret")
	httpx.Respond(w, http.StatusOK, map[string]any{"secret": string(secret), "rotatedAt": httpx.Time(time.Now())})
	return nil
}
