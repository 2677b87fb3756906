package ports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// StripeTolerance is how old a signed Stripe delivery may be; older ones could be replays.
const StripeTolerance = 300 * time.Second

// StripeWebhook receives Stripe's own webhooks, verifies them with Stripe's library and hands the
// event to the app.
type StripeWebhook struct {
	Secret  string
	Receive app.ReceivePayment
}

func (s *StripeWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Stripe sends JSON; any other body is not its event, however it is signed.
	if err := httpx.RequireJSON(r); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	payload, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxStripeBody))
	if err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if s.Secret == "" {
		httpx.Fail(w, r, apperr.Unavailable("payments_not_configured", "payment webhooks are not configured"))
		return
	}
	// Stripe's library reads a member given twice as its last value; the API's JSON never does.
	if !jsontext.Value(payload).IsValid() {
		httpx.Fail(w, r, apperr.Invalid(apperr.CodeMalformedJSON, "request body is not valid JSON (a member given twice, or bytes that are not UTF-8)"))
		return
	}
	header := r.Header.Get("Stripe-Signature")
	event, err := webhook.ConstructEventWithOptions(payload, header, s.Secret,
		webhook.ConstructEventOptions{Tolerance: StripeTolerance, IgnoreAPIVersionMismatch: true})
	if err == nil {
		err = notFromTheFuture(header, time.Now())
	}
	if err != nil {
		// The reason stays in the log: it would tell a forger which part of the header failed.
		slog.InfoContext(r.Context(), "payment webhook refused", "reason", err.Error())
		httpx.Fail(w, r, apperr.Invalid("invalid_signature", "Stripe-Signature does not verify"))
		return
	}
	p, err := paymentOf(event)
	if err != nil {
		httpx.Fail(w, r, apperr.Invalid("invalid_event", err.Error()))
		return
	}
	p.Raw = payload // forwarded as the processor sent it
	res, err := s.Receive.Handle(r.Context(), p)
	if err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if !res.Duplicate && !res.Matched {
		slog.InfoContext(r.Context(), "payment event matched no account", "stripeEventId", event.ID, "type", event.Type)
	}
	httpx.Respond(w, http.StatusOK, map[string]any{
		"received": true, "duplicate": res.Duplicate, "matched": res.Matched, "forwarded": res.Forwarded,
	})
}

// notFromTheFuture applies the tolerance the other way, which Stripe's library leaves out: a
// signature dated ahead could be replayed until that date plus the tolerance. The header's
// signatures have verified, so its t (the last one, as the library reads it) is Stripe's.
func notFromTheFuture(header string, now time.Time) error {
	var t int64
	for _, item := range strings.Split(header, ",") {
		if v, ok := strings.CutPrefix(item, "t="); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("timestamp %q: %w", v, err)
			}
			t = n
		}
	}
	if ahead := time.Unix(t, 0).Sub(now); ahead > StripeTolerance {
		return fmt.Errorf("signed %s in the future, beyond the %s tolerance", ahead.Round(time.Second), StripeTolerance)
	}
	return nil
}

// paymentOf reduces the event's object to the fields we forward. Unknown types keep only the id
// and type; the app acknowledges and ignores them.
func paymentOf(e stripe.Event) (domain.Payment, error) {
	p := domain.Payment{EventID: e.ID, Type: string(e.Type)}
	if e.ID == "" || e.Type == "" || e.Data == nil {
		return p, errors.New("event has no id, type or data")
	}
	decode := func(dst any) error {
		if err := json.Unmarshal(e.Data.Raw, dst); err != nil {
			return fmt.Errorf("decode %s object: %w", e.Type, err)
		}
		return nil
	}
	switch {
	case e.Type == integrationsevents.CheckoutSessionCompleted:
		var cs stripe.CheckoutSession
		if err := decode(&cs); err != nil {
			return p, err
		}
		p.CustomerEmail = cs.CustomerEmail
		if p.CustomerEmail == "" && cs.CustomerDetails != nil {
			p.CustomerEmail = cs.CustomerDetails.Email
		}
		p.CustomerID = customerID(cs.Customer)
		p.ClientReferenceID = cs.ClientReferenceID
		p.Plan = cs.Metadata["plan"]
		p.Status = string(cs.Status)
		p.Amount = &cs.AmountTotal
		if cs.Subscription != nil {
			p.SubscriptionID = cs.Subscription.ID
		}
	case e.Type == integrationsevents.SubscriptionCreated || e.Type == integrationsevents.SubscriptionUpdated || e.Type == integrationsevents.SubscriptionDeleted:
		var sub stripe.Subscription
		if err := decode(&sub); err != nil {
			return p, err
		}
		p.SubscriptionID = sub.ID
		p.CustomerID = customerID(sub.Customer)
		if sub.Customer != nil {
			p.CustomerEmail = sub.Customer.Email
		}
		p.Status = string(sub.Status)
		p.Plan = planOf(sub)
		cancel := sub.CancelAtPeriodEnd
		p.CancelAtPeriodEnd = &cancel
		p.EndedAt = unixTime(sub.EndedAt)
	case e.Type == integrationsevents.InvoicePaid || e.Type == integrationsevents.InvoicePaymentFailed || e.Type == integrationsevents.InvoicePaymentSucceeded:
		var inv stripe.Invoice
		if err := decode(&inv); err != nil {
			return p, err
		}
		p.InvoiceID = inv.ID
		p.CustomerEmail = inv.CustomerEmail
		p.CustomerID = customerID(inv.Customer)
		p.Status = string(inv.Status)
		p.AmountDue = &inv.AmountDue
		p.SubscriptionID = invoiceSubscription(inv, e.Data.Raw)
		p.NextAttempt = unixTime(inv.NextPaymentAttempt)
	}
	return p, nil
}

// invoiceSubscription is the invoice's subscription: parent.subscription_details.subscription in
// the processor's current API (since 2025-03-31), the top-level subscription in the older
// versions accounts may still be pinned to.
func invoiceSubscription(inv stripe.Invoice, raw json.RawMessage) string {
	if inv.Parent != nil && inv.Parent.SubscriptionDetails != nil && inv.Parent.SubscriptionDetails.Subscription != nil {
		return inv.Parent.SubscriptionDetails.Subscription.ID
	}
	var older struct {
		Subscription *stripe.Subscription `json:"subscription"`
	}
	if err := json.Unmarshal(raw, &older); err == nil && older.Subscription != nil {
		return older.Subscription.ID
	}
	return ""
}

func customerID(c *stripe.Customer) string {
	if c == nil {
		return ""
	}
	return c.ID
}

// planOf names the plan by the price's lookup key (how the bizassist prices are keyed), else
// the subscription's metadata.
func planOf(sub stripe.Subscription) string {
	if sub.Items != nil {
		for _, item := range sub.Items.Data {
			if item.Price != nil && item.Price.LookupKey != "" {
				return item.Price.LookupKey
			}
		}
	}
	return sub.Metadata["plan"]
}

func unixTime(sec int64) *time.Time {
	if sec == 0 {
		return nil
	}
	t := time.Unix(sec, 0).UTC()
	return &t
}
