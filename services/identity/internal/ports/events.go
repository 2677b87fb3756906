package ports

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/identity/internal/app"
)

// Payment event types that move an account's plan.
var paymentTypes = []string{
	"payment.checkout.session.completed",
	"payment.customer.subscription.updated",
	"payment.customer.subscription.deleted",
}

// EventHandlers returns identity's consumers: inbound new_client events become client accounts
// and payment events keep plans in step. The repository joins the consumer's transaction through
// the context, so each change commits together with the record that the event was processed.
func EventHandlers(createClient *app.CreateClient, applyPayment *app.ApplyPayment) map[string]events.Handler {
	handlers := map[string]events.Handler{
		"inbound.new_client": func(ctx context.Context, _ pgx.Tx, e events.Envelope) error {
			var d app.NewClientData
			if err := e.Decode(&d); err != nil {
				return err
			}
			return createClient.Handle(ctx, e.AccountID, d)
		},
	}
	for _, typ := range paymentTypes {
		handlers[typ] = func(ctx context.Context, _ pgx.Tx, e events.Envelope) error {
			var d app.PaymentData
			if err := e.Decode(&d); err != nil {
				return err
			}
			if d.Type == "" {
				d.Type = strings.TrimPrefix(e.Type, "payment.")
			}
			if d.AccountID == "" {
				d.AccountID = e.AccountID
			}
			return applyPayment.Handle(ctx, d)
		}
	}
	return handlers
}
