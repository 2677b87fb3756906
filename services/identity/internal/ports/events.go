package ports

import (
	"cmp"
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts/analyticsevents"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/identity/internal/app"
)

// paymentTypes are the payment events that move an account's plan.
var paymentTypes = []string{
	integrationsevents.PaymentCheckoutSessionCompleted,
	integrationsevents.PaymentSubscriptionUpdated,
	integrationsevents.PaymentSubscriptionDeleted,
}

// newClientRefused counts the inbound new_client events identity refused, by the refusal's code
// (plan_upgrade_required, too_many_clients, invalid_field, ...).
var newClientRefused = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "bizassist_identity_new_client_refused_total",
	Help: "Inbound new_client events refused (owner's plan, client allowance, invalid details), by code.",
}, []string{"code"})

// EventHandlers returns identity's consumers: inbound new_client events become invited clients,
// payment events keep plans in step, and health.scored keeps each client's health for its owner's
// list. Each decodes the producer's contract type into a
// command for its use case, which runs in the consumer's transaction (carried by ctx).
func EventHandlers(a app.Application) map[string]events.Handler {
	createClient, applyPayment, recordHealth := a.CreateClient, a.ApplyPayment, a.RecordHealth
	handlers := map[string]events.Handler{
		analyticsevents.HealthScored: events.Typed(func(ctx context.Context, e events.Envelope, d analyticsevents.HealthScoredData) error {
			return recordHealth.Handle(ctx, app.RecordHealthCommand{AccountID: d.AccountID, Score: d.Score, Tier: d.Tier, At: d.At.Or(e.OccurredAt)})
		}),
		integrationsevents.InboundNewClient: events.Typed(func(ctx context.Context, e events.Envelope, d integrationsevents.NewClientData) error {
			err := createClient.Handle(ctx, app.CreateClientCommand{OwnerID: e.AccountID, BusinessName: d.BusinessName,
				Email: d.Email, OwnerName: d.OwnerName, Phone: d.Phone, Plan: d.Plan})
			if code := apperr.CodeOf(err); err != nil && code != apperr.CodeInternal {
				// A refusal is final: retrying cannot change it, so it is counted and logged, then acknowledged.
				newClientRefused.WithLabelValues(code).Inc()
				slog.WarnContext(ctx, "inbound new_client refused", "eventId", e.ID, "owner_id", e.AccountID, "code", code, "error", err)
				return nil
			}
			return err
		}),
	}
	applyPaymentEvent := events.Typed(func(ctx context.Context, e events.Envelope, d integrationsevents.PaymentData) error {
		return applyPayment.Handle(ctx, app.ApplyPaymentCommand{Type: cmp.Or(d.Type, integrationsevents.ProcessorType(e.Type)),
			AccountID: cmp.Or(d.AccountID, e.AccountID), Plan: d.Plan, Status: d.Status})
	})
	for _, typ := range paymentTypes {
		handlers[typ] = applyPaymentEvent
	}
	return handlers
}
