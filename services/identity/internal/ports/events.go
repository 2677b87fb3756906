package ports

import (
	"cmp"
	"context"

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

// EventHandlers returns identity's consumers: inbound new_client events become client accounts
// and payment events keep plans in step. Each decodes the producer's contract type into a
// command for its use case, which runs in the consumer's transaction (carried by ctx).
func EventHandlers(createClient *app.CreateClient, applyPayment *app.ApplyPayment) map[string]events.Handler {
	handlers := map[string]events.Handler{
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
