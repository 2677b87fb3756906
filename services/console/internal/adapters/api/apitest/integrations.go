package apitest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/httpx"
)

// integrations: REST hook subscriptions, their deliveries and replay, the inbound secret.

func (a *API) subJSON(s subscription) map[string]any {
	return map[string]any{"id": s.id, "hookUrl": s.hookURL, "event": s.event, "status": "active",
		"createdAt": ts(s.createdAt), "failingSince": nil}
}

func (a *API) listSubs(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []map[string]any{}
	for _, s := range a.subs {
		out = append(out, a.subJSON(s))
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"subscriptions": out})
}

// outbound are the event types a hook may subscribe to.
var outbound = append([]string{"new_lead", "health_score.critical"}, integrationsevents.ProcessorTypes()...)

func (a *API) subscribe(w http.ResponseWriter, r *http.Request, _ string) {
	var in struct {
		HookURL string `json:"hookUrl"`
		Event   string `json:"event"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if !strings.HasPrefix(in.HookURL, "https://") {
		httpx.Fail(w, r, apperr.InvalidField("hookUrl", "must be an absolute https URL"))
		return
	}
	if !slices.Contains(outbound, in.Event) {
		httpx.Fail(w, r, apperr.InvalidField("event", "is not an event type"))
		return
	}
	a.mu.Lock()
	i := slices.IndexFunc(a.subs, func(s subscription) bool { return s.event == in.Event && s.hookURL == in.HookURL })
	if i >= 0 { // idempotent: the same subscription, no secret
		body := a.subJSON(a.subs[i])
		a.mu.Unlock()
		httpx.Respond(w, http.StatusOK, body)
		return
	}
	a.mu.Unlock()
	id := a.AddSubscription(in.HookURL, in.Event)
	a.mu.Lock()
	body := a.subJSON(a.subs[len(a.subs)-1])
	a.mu.Unlock()
	body["secret"] = "whsec_" + strings.TrimPrefix(id, "hook_")
	httpx.Respond(w, http.StatusCreated, body)
}

func (a *API) unsubscribe(w http.ResponseWriter, r *http.Request, _ string) {
	id := r.PathValue("id")
	a.mu.Lock()
	i := slices.IndexFunc(a.subs, func(s subscription) bool { return s.id == id })
	if i >= 0 {
		a.subs = slices.Delete(a.subs, i, i+1)
	}
	a.mu.Unlock()
	if i < 0 {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such subscription"))
		return
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
}

func (a *API) deliveries(w http.ResponseWriter, r *http.Request, _ string) {
	id := r.PathValue("id")
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.ContainsFunc(a.subs, func(s subscription) bool { return s.id == id }) {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such subscription"))
		return
	}
	out := []map[string]any{}
	for _, at := range a.attempts[id] {
		var e any
		if at.Error != "" {
			e = at.Error
		}
		out = append(out, map[string]any{"deliveryId": at.DeliveryID, "event": at.Event, "attemptedAt": ts(at.At),
			"statusCode": at.StatusCode, "latencyMs": at.LatencyMs, "error": e})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"attempts": out})
}

func (a *API) replay(w http.ResponseWriter, r *http.Request, _ string) {
	id := r.PathValue("id")
	a.mu.Lock()
	known := false
	for _, ats := range a.attempts {
		known = known || slices.ContainsFunc(ats, func(at Attempt) bool { return at.DeliveryID == id })
	}
	a.mu.Unlock()
	if !known {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such delivery"))
		return
	}
	httpx.Respond(w, http.StatusAccepted, map[string]any{"deliveryId": id, "queued": true})
}

func (a *API) rotate(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	a.seq++
	secret := fmt.Sprintf("ext_secret_%d", a.seq)
	a.mu.Unlock()
	httpx.Respond(w, http.StatusOK, map[string]any{"secret": secret, "rotatedAt": ts(a.now())})
}
