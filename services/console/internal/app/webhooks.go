package app

import (
	"context"
	"slices"

	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
)

// PaymentEvents are the payment-processor events an owner may forward: those integrations forwards.
var PaymentEvents = integrationsevents.ProcessorTypes()

// IsPaymentEvent reports whether event is one of PaymentEvents.
func IsPaymentEvent(event string) bool { return slices.Contains(PaymentEvents, event) }

// WebhooksPage is the Webhooks area: the inbound secret, REST hook subscriptions with their
// deliveries, and the payment events opt-in.
type WebhooksPage struct{ Integrations Integrations }

// Webhooks is the Webhooks page's data: the subscriptions split into REST hooks and payment
// event forwarding.
type Webhooks struct {
	Hooks    []Subscription // REST hooks other than payment events
	Payments []Subscription
	// PaymentURL is where payment events go (the last payment subscription's URL), "" when off.
	PaymentURL string
}

// Load lists the caller's subscriptions, split into hooks and payment forwarding.
func (p WebhooksPage) Load(ctx context.Context, token string) (Webhooks, error) {
	subs, err := p.Integrations.Subscriptions(ctx, token)
	var w Webhooks
	for _, sub := range subs {
		if IsPaymentEvent(sub.Event) {
			w.Payments, w.PaymentURL = append(w.Payments, sub), sub.HookURL
		} else {
			w.Hooks = append(w.Hooks, sub)
		}
	}
	return w, err
}

// RotateSecret replaces the inbound webhook secret and returns the new one (shown once).
func (p WebhooksPage) RotateSecret(ctx context.Context, token string) (string, error) {
	return p.Integrations.RotateSecret(ctx, token)
}

// Subscribe subscribes hookURL to event; the answer carries the signing secret, shown once.
func (p WebhooksPage) Subscribe(ctx context.Context, token, hookURL, event string) (Subscription, error) {
	return p.Integrations.Subscribe(ctx, token, hookURL, event)
}

// Unsubscribe deletes a subscription.
func (p WebhooksPage) Unsubscribe(ctx context.Context, token, id string) error {
	return p.Integrations.Unsubscribe(ctx, token, id)
}

// Deliveries is one subscription's page: the subscription and its delivery attempts.
type Deliveries struct {
	Sub      Subscription
	Attempts []Attempt
}

// Deliveries loads a subscription and its attempts. ErrNotFound when the caller has no
// subscription id. When the attempts cannot be loaded the subscription is still returned with
// the error, so the page can say which one failed.
func (p WebhooksPage) Deliveries(ctx context.Context, token, id string) (Deliveries, error) {
	var d Deliveries
	subs, err := p.Integrations.Subscriptions(ctx, token)
	if err != nil {
		return d, err
	}
	i := slices.IndexFunc(subs, func(x Subscription) bool { return x.ID == id })
	if i < 0 {
		return d, ErrNotFound
	}
	d.Sub = subs[i]
	d.Attempts, err = p.Integrations.Attempts(ctx, token, id)
	return d, err
}

// Replay queues a delivery again.
func (p WebhooksPage) Replay(ctx context.Context, token, deliveryID string) error {
	return p.Integrations.Replay(ctx, token, deliveryID)
}

// OptInPayments subscribes hookURL to each chosen payment event and unsubscribes the payment
// subscriptions not chosen, so the form's state becomes the account's: choosing none turns
// forwarding off. Events that are not payment events are ignored. It stops at the first
// refusal, leaving what was done so far.
func (p WebhooksPage) OptInPayments(ctx context.Context, token, hookURL string, events []string) error {
	current, err := p.Integrations.Subscriptions(ctx, token)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, e := range events {
		if IsPaymentEvent(e) {
			want[e] = true
		}
	}
	for e := range want {
		if _, err := p.Integrations.Subscribe(ctx, token, hookURL, e); err != nil {
			return err
		}
	}
	for _, s := range current {
		if IsPaymentEvent(s.Event) && (!want[s.Event] || s.HookURL != hookURL) {
			if err := p.Integrations.Unsubscribe(ctx, token, s.ID); err != nil {
				return err
			}
		}
	}
	return nil
}
