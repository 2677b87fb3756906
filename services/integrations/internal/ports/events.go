package ports

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// EventHandlers are the consumer handlers of the "integrations" group, each run in the
// transaction that records the event as processed.
func EventHandlers(a app.Application) map[string]events.Handler {
	return map[string]events.Handler{
		"account.created": func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			var d app.AccountCreated
			if err := e.Decode(&d); err != nil {
				return err
			}
			return a.ProjectAccount.Handle(ctx, tx, d)
		},
		"lead.written": func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			var d domain.LeadWritten
			if err := e.Decode(&d); err != nil {
				return err
			}
			return a.Forward.LeadWritten(ctx, tx, e.AccountID, d)
		},
		"health.critical": func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			var d domain.HealthCritical
			if err := e.Decode(&d); err != nil {
				return err
			}
			return a.Forward.HealthCritical(ctx, tx, e.AccountID, d)
		},
	}
}
