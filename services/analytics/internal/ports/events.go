package ports

import (
	"cmp"
	"context"

	"github.com/bizassist/bizassist/libs/contracts/analyticsevents"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

// inboundTypes count towards integrationUse: webhook traffic the account's integrations sent.
var inboundTypes = []string{integrationsevents.InboundNewLead, integrationsevents.InboundNewClient, integrationsevents.InboundContactForm}

// EventHandlers returns the consumers of every event analytics projects. Each decodes the
// producer's contract type into a command for its use case, which runs in the consumer's
// transaction (carried by ctx). A field the payload leaves out falls back to the envelope: its
// account, its id, when it occurred.
func EventHandlers(a app.Application) map[string]events.Handler {
	p := a.Projections
	h := map[string]events.Handler{
		identityevents.AccountCreated: events.Typed(func(ctx context.Context, e events.Envelope, d identityevents.AccountCreatedData) error {
			return p.Account.Handle(ctx, app.NewAccount{AccountID: d.AccountID, OwnerID: d.OwnerID, Email: d.Email,
				BusinessName: d.BusinessName, Plan: d.Plan, CreatedAt: d.CreatedAt.Or(e.OccurredAt)})
		}),
		identityevents.AccountLogin: events.Typed(func(ctx context.Context, e events.Envelope, d identityevents.AccountLoginData) error {
			return p.Login.Handle(ctx, app.LoginCommand{AccountID: cmp.Or(d.AccountID, e.AccountID), Email: d.Email, At: d.At.Or(e.OccurredAt)})
		}),
		identityevents.AccountPlanChanged: events.Typed(func(ctx context.Context, e events.Envelope, d identityevents.AccountPlanChangedData) error {
			return p.PlanChange.Handle(ctx, app.PlanChangeCommand{AccountID: cmp.Or(d.AccountID, e.AccountID), Plan: d.Plan, At: d.At.Or(e.OccurredAt)})
		}),
		analyticsevents.UsageRecorded: events.Typed(func(ctx context.Context, e events.Envelope, d analyticsevents.UsageRecordedData) error {
			return p.Usage.Handle(ctx, app.ReportedUsageCommand{EventID: cmp.Or(d.EventID, e.ID), AccountID: cmp.Or(d.AccountID, e.AccountID),
				Feature: d.Feature, Action: d.Action, Count: d.Count, At: d.At.Or(e.OccurredAt)})
		}),
		leadsevents.LeadWritten: func(ctx context.Context, e events.Envelope) error {
			return p.Activity.Handle(ctx, app.ActivityCommand{AccountID: e.AccountID, Kind: app.ActivityLead, At: e.OccurredAt})
		},
	}
	inbound := func(ctx context.Context, e events.Envelope) error {
		return p.Activity.Handle(ctx, app.ActivityCommand{AccountID: e.AccountID, Kind: app.ActivityInbound, At: e.OccurredAt})
	}
	for _, typ := range inboundTypes {
		h[typ] = inbound
	}
	payment := events.Typed(func(ctx context.Context, e events.Envelope, d integrationsevents.PaymentData) error {
		return p.Payment.Handle(ctx, app.PaymentCommand{AccountID: cmp.Or(d.AccountID, e.AccountID), At: e.OccurredAt,
			Event: health.PaymentEvent{Type: cmp.Or(d.Type, integrationsevents.ProcessorType(e.Type)), Status: d.Status,
				CancelAtPeriodEnd: d.CancelAtPeriodEnd != nil && *d.CancelAtPeriodEnd}})
	})
	for _, typ := range integrationsevents.PaymentTypes() {
		h[typ] = payment
	}
	return h
}
