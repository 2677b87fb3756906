package ports

import (
	"cmp"
	"context"

	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
)

// EventHandlers turns events of our own services into public feed events: a captured lead and a
// contact form (a chat exchange is recorded with the turn itself). Each decodes the producer's
// contract type into a command that carries only allow-listed fields and the account whose event
// it is. Recording is idempotent by the source event id. Identity's account.created,
// account.plan_changed and account.revoked (disabled) keep each account's standing, which decides
// whether its text is quoted.
func EventHandlers(a app.Application) map[string]events.Handler {
	record, account := a.Record, a.Account
	return map[string]events.Handler{
		leadsevents.LeadWritten: events.Typed(func(ctx context.Context, e events.Envelope, d leadsevents.LeadWrittenData) error {
			return record.Handle(ctx, app.FeedEventCommand{SourceID: e.ID, AccountID: e.AccountID, Module: "the service",
				EventType: "LeadCaptured", At: e.OccurredAt, Fields: map[string]string{"source": d.Source}})
		}),
		// The subject is a label (shown only when it is a known subject), the message free text.
		integrationsevents.InboundContactForm: events.Typed(func(ctx context.Context, e events.Envelope, d integrationsevents.ContactFormData) error {
			return record.Handle(ctx, app.FeedEventCommand{SourceID: e.ID, AccountID: e.AccountID, Module: "the service",
				EventType: "ContactFormReceived", At: e.OccurredAt, Fields: map[string]string{"subject": d.Subject, "text": d.Message}})
		}),
		identityevents.AccountCreated: events.Typed(func(ctx context.Context, e events.Envelope, d identityevents.AccountCreatedData) error {
			created := d.CreatedAt.Or(e.OccurredAt)
			return account.Handle(ctx, app.AccountCommand{AccountID: d.AccountID, Plan: d.Plan, At: created, CreatedAt: created})
		}),
		identityevents.AccountPlanChanged: events.Typed(func(ctx context.Context, e events.Envelope, d identityevents.AccountPlanChangedData) error {
			return account.Handle(ctx, app.AccountCommand{AccountID: cmp.Or(d.AccountID, e.AccountID), Plan: d.Plan, At: d.At.Or(e.OccurredAt)})
		}),
		// Only a disabled account changes its standing; a deleted key or a new password does not.
		identityevents.AccountRevoked: events.Typed(func(ctx context.Context, e events.Envelope, d identityevents.AccountRevokedData) error {
			if d.Reason != identityevents.RevokedAccountDisabled {
				return nil
			}
			return account.Handle(ctx, app.AccountCommand{AccountID: cmp.Or(d.AccountID, e.AccountID), Disabled: true})
		}),
	}
}
