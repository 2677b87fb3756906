package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// Projection is the account projection the consumed events build. Each method joins the
// transaction ctx carries (the consumer's), so a projected event commits with the record that it
// was processed.
type Projection interface {
	// Created records an account; a row made earlier from a login or a request is completed. Its
	// plan is the plan at creation, unless a newer plan change is already applied.
	Created(ctx context.Context, n NewAccount) error
	// LoggedIn records a login at at: the last login and the login day.
	LoggedIn(ctx context.Context, accountID, email string, at time.Time) error
	// PlanChanged records a plan change made at at, unless the row already has a newer plan.
	PlanChanged(ctx context.Context, accountID, plan string, at time.Time) error
	// UpdatePayment runs fn on the account's payment state with the row locked (a row first seen
	// at seen is made for an account not projected yet) and stores what fn returns, unless fn
	// reports no change.
	UpdatePayment(ctx context.Context, accountID string, seen time.Time, fn func(health.PaymentState) (health.PaymentState, bool)) error
	// Activity counts one activity of kind on at's UTC day.
	Activity(ctx context.Context, accountID string, kind Activity, at time.Time) error
	// UsageRecorded stores a usage event another service reported; a repeat of its id is a no-op.
	UsageRecorded(ctx context.Context, e usage.Event) error
}

// Projections are the use cases the consumed events drive.
type Projections struct {
	Account    RecordAccount
	Login      RecordLogin
	PlanChange RecordPlanChange
	Payment    RecordPayment
	Usage      RecordReportedUsage
	Activity   RecordActivity
}

// NewProjections wires every projection use case to p.
func NewProjections(p Projection) Projections {
	return Projections{Account: RecordAccount{p}, Login: RecordLogin{p}, PlanChange: RecordPlanChange{p},
		Payment: RecordPayment{p}, Usage: RecordReportedUsage{p}, Activity: RecordActivity{p}}
}

// RecordAccount projects a created account (account.created).
type RecordAccount struct{ Projection Projection }

func (h RecordAccount) Handle(ctx context.Context, n NewAccount) error {
	return h.Projection.Created(ctx, n)
}

// LoginCommand is a successful sign-in.
type LoginCommand struct {
	AccountID, Email string
	At               time.Time
}

// RecordLogin projects a sign-in (account.login).
type RecordLogin struct{ Projection Projection }

func (h RecordLogin) Handle(ctx context.Context, cmd LoginCommand) error {
	return h.Projection.LoggedIn(ctx, cmd.AccountID, cmd.Email, cmd.At)
}

// PlanChangeCommand is an account moved to plan at at.
type PlanChangeCommand struct {
	AccountID, Plan string
	At              time.Time
}

// RecordPlanChange projects a plan change (account.plan_changed).
type RecordPlanChange struct{ Projection Projection }

func (h RecordPlanChange) Handle(ctx context.Context, cmd PlanChangeCommand) error {
	return h.Projection.PlanChanged(ctx, cmd.AccountID, cmd.Plan, cmd.At)
}

// PaymentCommand is a forwarded payment-processor event that happened at At.
type PaymentCommand struct {
	AccountID string
	Event     health.PaymentEvent
	At        time.Time
}

// RecordPayment moves the account's payment state (payment.*); an event older than the one that
// set the state is ignored.
type RecordPayment struct{ Projection Projection }

func (h RecordPayment) Handle(ctx context.Context, cmd PaymentCommand) error {
	return h.Projection.UpdatePayment(ctx, cmd.AccountID, cmd.At, func(s health.PaymentState) (health.PaymentState, bool) {
		return s.Apply(cmd.Event, cmd.At)
	})
}

// ReportedUsageCommand is a usage event another service reported (usage.recorded).
type ReportedUsageCommand struct {
	EventID, AccountID, Feature, Action string
	Count                               int
	At                                  time.Time
}

// RecordReportedUsage stores reported usage. A feature name that is not valid is skipped with a
// log line, not retried: retrying cannot fix it, the producer has to.
type RecordReportedUsage struct{ Projection Projection }

func (h RecordReportedUsage) Handle(ctx context.Context, cmd ReportedUsageCommand) error {
	if !usage.ValidName(cmd.Feature) {
		slog.WarnContext(ctx, "usage.recorded with an invalid feature skipped", "eventId", cmd.EventID, "feature", cmd.Feature)
		return nil
	}
	return h.Projection.UsageRecorded(ctx, usage.Recorded(cmd.EventID, cmd.AccountID, cmd.Feature, cmd.Action, cmd.Count, cmd.At))
}

// ActivityCommand is one dated activity of an account: a lead written or an inbound event.
type ActivityCommand struct {
	AccountID string
	Kind      Activity
	At        time.Time
}

// RecordActivity counts an activity towards its signal (lead.written, inbound.*).
type RecordActivity struct{ Projection Projection }

func (h RecordActivity) Handle(ctx context.Context, cmd ActivityCommand) error {
	return h.Projection.Activity(ctx, cmd.AccountID, cmd.Kind, cmd.At)
}
