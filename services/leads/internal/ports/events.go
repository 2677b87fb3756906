package ports

import (
	"context"

	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/leads/internal/app"
)

// EventHandlers are the events the leads consumer group takes. Each decodes the producer's
// contract type into a command for its use case, which runs in the consumer's transaction
// (carried by ctx).
func EventHandlers(a app.Application) map[string]events.Handler {
	return map[string]events.Handler{
		integrationsevents.InboundNewLead: events.Typed(func(ctx context.Context, e events.Envelope, d integrationsevents.NewLeadData) error {
			return a.Inbound.Handle(ctx, app.InboundLeadCommand{EventID: e.ID, AccountID: e.AccountID, InboundID: d.InboundID,
				Name: d.Name, Email: d.Email, Phone: d.Phone, Source: d.Source, Notes: d.Notes, Extras: d.Extras})
		}),
	}
}
