package ports

import (
	"context"

	"github.com/bizassist/bizassist/libs/contracts/analyticsevents"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents/leadfields"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// EventHandlers are the consumer handlers of the "integrations" group. Each decodes the
// producer's contract type into a command for its use case, which runs in the consumer's
// transaction (carried by ctx).
func EventHandlers(a app.Application) map[string]events.Handler {
	return map[string]events.Handler{
		identityevents.AccountCreated: events.Typed(func(ctx context.Context, _ events.Envelope, d identityevents.AccountCreatedData) error {
			return a.ProjectAccount.Handle(ctx, app.NewAccount{AccountID: d.AccountID, Email: d.Email, Role: d.Role, OwnerID: d.OwnerID})
		}),
		leadsevents.LeadWritten: events.Typed(func(ctx context.Context, e events.Envelope, d leadsevents.LeadWrittenData) error {
			if err := a.KnowLead.Handle(ctx, app.WrittenLead{AccountID: e.AccountID, LeadID: d.LeadID, InboundID: d.InboundID,
				Fields: leadfields.Fields{"name": d.Name, "phone": d.Phone, "source": d.Source}}); err != nil {
				return err
			}
			return a.ForwardLead.Handle(ctx, app.ForwardCommand[domain.LeadWritten]{AccountID: e.AccountID, Event: domain.LeadWritten{
				LeadID: d.LeadID, Name: d.Name, Email: d.Email, Phone: d.Phone, Source: d.Source, At: d.Timestamp.Time}})
		}),
		analyticsevents.HealthCritical: events.Typed(func(ctx context.Context, e events.Envelope, d analyticsevents.HealthCriticalData) error {
			return a.ForwardHealth.Handle(ctx, app.ForwardCommand[domain.HealthCritical]{AccountID: e.AccountID, Event: domain.HealthCritical{
				Email: d.Email, BusinessName: d.BusinessName, Score: d.Score, Recommendation: d.Recommendation}})
		}),
	}
}
