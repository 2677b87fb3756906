package ports

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/services/console/internal/app"
)

// webhooksData is the Webhooks page's data.
type webhooksData struct {
	app.Webhooks
	PaymentEvents []string
	Err           error
	NewSecret     string
	NewHook       *app.Subscription
}

func (h *Web) webhooksPage(w http.ResponseWriter, r *http.Request, s *signedIn, status int, v *view, d webhooksData) {
	var err error
	d.Webhooks, err = h.App.Webhooks.Load(r.Context(), s.sess.Token)
	if h.ended(w, r, s, err) {
		return
	}
	d.Err, d.PaymentEvents = err, app.PaymentEvents
	if _, ok := v.Forms["payments"]; !ok {
		f := &form{Values: url.Values{"hookUrl": {d.PaymentURL}}}
		for _, p := range d.Payments {
			f.Values.Add("events", p.Event)
		}
		v.Forms["payments"] = f
	}
	v.D = d
	h.page(w, r, status, "webhooks", v)
}

func (h *Web) webhooks(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.webhooksPage(w, r, s, http.StatusOK, signedView(s, "Webhooks", "Webhooks"), webhooksData{})
}

func (h *Web) rotateSecret(w http.ResponseWriter, r *http.Request, s *signedIn) {
	v := signedView(s, "Webhooks", "Webhooks")
	secret, err := h.App.Webhooks.RotateSecret(r.Context(), s.sess.Token)
	if err != nil {
		if h.ended(w, r, s, err) {
			return
		}
		v.Forms["secret"] = refused(r.PostForm, err)
		h.webhooksPage(w, r, s, statusOf(err), v, webhooksData{})
		return
	}
	h.webhooksPage(w, r, s, http.StatusOK, v, webhooksData{NewSecret: secret})
}

func (h *Web) subscribe(w http.ResponseWriter, r *http.Request, s *signedIn) {
	v := signedView(s, "Webhooks", "Webhooks")
	sub, err := h.App.Webhooks.Subscribe(r.Context(), s.sess.Token, strings.TrimSpace(r.PostForm.Get("hookUrl")), r.PostForm.Get("event"))
	if err != nil {
		if h.ended(w, r, s, err) {
			return
		}
		v.Forms["subscribe"] = refused(r.PostForm, err, "hookUrl", "event")
		h.webhooksPage(w, r, s, statusOf(err), v, webhooksData{})
		return
	}
	if sub.Secret == "" {
		http.Redirect(w, r, "/webhooks?done=subscribed", http.StatusSeeOther)
		return
	}
	h.webhooksPage(w, r, s, http.StatusCreated, v, webhooksData{NewHook: &sub})
}

func (h *Web) unsubscribe(w http.ResponseWriter, r *http.Request, s *signedIn) {
	err := h.App.Webhooks.Unsubscribe(r.Context(), s.sess.Token, mux.Vars(r)["id"])
	h.afterAction(w, r, s, err, "/webhooks", "unsubscribed", "hooks", "Webhooks", func(status int, v *view) {
		h.webhooksPage(w, r, s, status, v, webhooksData{})
	})
}

func (h *Web) optInPayments(w http.ResponseWriter, r *http.Request, s *signedIn) {
	f := r.PostForm
	events := f["events"]
	hookURL := strings.TrimSpace(f.Get("hookUrl"))
	if f.Get("off") != "" {
		events = nil
	}
	err := h.App.Webhooks.OptInPayments(r.Context(), s.sess.Token, hookURL, events)
	if err != nil {
		if h.ended(w, r, s, err) {
			return
		}
		v := signedView(s, "Webhooks", "Webhooks")
		v.Forms["payments"] = refused(f, err, "hookUrl")
		h.webhooksPage(w, r, s, statusOf(err), v, webhooksData{})
		return
	}
	http.Redirect(w, r, "/webhooks?done=payments-saved", http.StatusSeeOther)
}

// subscriptionData is one subscription's page: its delivery attempts.
type subscriptionData struct {
	app.Deliveries
	Err error
}

func (h *Web) subscriptionPage(w http.ResponseWriter, r *http.Request, s *signedIn, id string, status int, v *view) {
	d, err := h.App.Webhooks.Deliveries(r.Context(), s.sess.Token, id)
	if errors.Is(err, app.ErrNotFound) {
		h.notFound(w, r)
		return
	}
	if h.ended(w, r, s, err) {
		return
	}
	v.D = subscriptionData{Deliveries: d, Err: err}
	h.page(w, r, status, "subscription", v)
}

func (h *Web) subscription(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.subscriptionPage(w, r, s, mux.Vars(r)["id"], http.StatusOK, signedView(s, "Webhook deliveries", "Webhooks"))
}

func (h *Web) replay(w http.ResponseWriter, r *http.Request, s *signedIn) {
	sub := r.PostForm.Get("subscription")
	err := h.App.Webhooks.Replay(r.Context(), s.sess.Token, mux.Vars(r)["id"])
	target := "/webhooks/subscriptions/" + url.PathEscape(sub)
	h.afterAction(w, r, s, err, target, "replayed", "replay", "Webhook deliveries", func(status int, v *view) {
		v.Active = "Webhooks"
		h.subscriptionPage(w, r, s, sub, status, v)
	})
}
