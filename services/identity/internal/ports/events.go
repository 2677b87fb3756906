package ports

import (
	"cmp"
	"context"

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

// EventHandlers returns identity's consumers: inbound new_client events become invited clients,
// payment events keep plans in step, and health.scored keeps each client's health for its owner's
// list. Each decodes the producer's contract type into a
// command for its use case, which runs in the consumer's transaction (carried by ctx).
func EventHandlers(createClient *app.CreateClient, applyPayment *app.ApplyPayment, recordHealth *app.RecordHealth) map[string]events.Handler {
	handlers := map[string]events.Handler{
		analyticsevents.HealthScored: events.Typed(func(ctx context.Context, e events.Envelope, d analyticsevents.HealthScoredData) error {
			return recordHealth.Handle(ctx, app.RecordHealthCommand{AccountID: d.AccountID, Score: d.Score, Tier: d.Tier, At: d.At.Or(e.OccurredAt)})
		}),
		integrationsevents.InboundNewClient: events.Typed(func(ctx context.Context, e events.Envelope, d integrationsevents.NewClientData) error {
			return createClient.Handle(ctx, app.CreateClientCommand{OwnerID: e.AccountID, BusinessName: d.BusinessName,
				Email: d.Email, OwnerName: d.OwnerName, Phone: d.Phone, Plan: d.Plan})
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
