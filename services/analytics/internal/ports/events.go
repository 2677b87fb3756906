package ports

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// Projection is where the consumed events land, inside the consumer's transaction.
type Projection interface {
	Created(ctx context.Context, tx pgx.Tx, a app.NewAccount) error
	LoggedIn(ctx context.Context, tx pgx.Tx, accountID, email string, at time.Time) error
	PlanChanged(ctx context.Context, tx pgx.Tx, accountID, plan string, at time.Time) error
	Payment(ctx context.Context, tx pgx.Tx, accountID string, e health.PaymentEvent, at time.Time) error
	Activity(ctx context.Context, tx pgx.Tx, accountID string, kind app.Activity, at time.Time) error
	UsageRecorded(ctx context.Context, tx pgx.Tx, e usage.Event) error
}

// PaymentTypes are the forwarded processor events that move the payment signal.
var PaymentTypes = []string{
	"payment.checkout.session.completed",
	"payment.customer.subscription.created",
	"payment.customer.subscription.updated",
	"payment.customer.subscription.deleted",
	"payment.invoice.paid",
	"payment.invoice.payment_failed",
	"payment.invoice.payment_succeeded",
}

// inboundTypes count towards integrationUse: webhook traffic the account's integrations sent.
var inboundTypes = []string{"inbound.new_lead", "inbound.new_client", "inbound.contact_form"}

type accountCreated struct {
	AccountID    string    `json:"accountId"`
	Email        string    `json:"email"`
	Plan         string    `json:"plan"`
	OwnerID      string    `json:"ownerId"`
	BusinessName string    `json:"businessName"`
	CreatedAt    time.Time `json:"createdAt"`
}

type accountLogin struct {
	AccountID string    `json:"accountId"`
	Email     string    `json:"email"`
	At        time.Time `json:"at"`
}

type planChanged struct {
	AccountID string    `json:"accountId"`
	Plan      string    `json:"plan"`
	At        time.Time `json:"at"`
}

type usageRecorded struct {
	EventID string `json:"eventId"`
	// AccountID names the user when it is not the envelope's account; producers may omit it.
	AccountID string `json:"accountId"`
	Feature   string `json:"feature"`
	Action    string `json:"action"`
	Count     int    `json:"count"`
	At        string `json:"at"`
}

type paymentData struct {
	Type              string `json:"type"`
	AccountID         string `json:"accountId"`
	Status            string `json:"status"`
	CancelAtPeriodEnd *bool  `json:"cancelAtPeriodEnd"`
}

// EventHandlers returns the consumers of every event analytics projects.
func EventHandlers(p Projection) map[string]events.Handler {
	h := map[string]events.Handler{
		"account.created": func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			var d accountCreated
			if err := e.Decode(&d); err != nil {
				return err
			}
			if d.CreatedAt.IsZero() {
				d.CreatedAt = e.OccurredAt
			}
			return p.Created(ctx, tx, app.NewAccount{AccountID: d.AccountID, OwnerID: d.OwnerID, Email: d.Email,
				BusinessName: d.BusinessName, Plan: d.Plan, CreatedAt: d.CreatedAt})
		},
		"account.login": func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			var d accountLogin
			if err := e.Decode(&d); err != nil {
				return err
			}
			return p.LoggedIn(ctx, tx, or(d.AccountID, e.AccountID), d.Email, orTime(d.At, e.OccurredAt))
		},
		"account.plan_changed": func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			var d planChanged
			if err := e.Decode(&d); err != nil {
				return err
			}
			return p.PlanChanged(ctx, tx, or(d.AccountID, e.AccountID), d.Plan, orTime(d.At, e.OccurredAt))
		},
		"usage.recorded": func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			var d usageRecorded
			if err := e.Decode(&d); err != nil {
				return err
			}
			if !usage.ValidName(d.Feature) {
				// Retrying cannot fix it; the producer has to. Skipped, not dead-lettered forever.
				slog.WarnContext(ctx, "usage.recorded with an invalid feature skipped", "eventId", e.ID, "feature", d.Feature)
				return nil
			}
			at, err := time.Parse(time.RFC3339Nano, d.At)
			if err != nil {
				at = e.OccurredAt
			}
			return p.UsageRecorded(ctx, tx, usage.Recorded(or(d.EventID, e.ID), or(d.AccountID, e.AccountID), d.Feature, d.Action, d.Count, at))
		},
		"lead.written": func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			return p.Activity(ctx, tx, e.AccountID, app.ActivityLead, e.OccurredAt)
		},
	}
	for _, typ := range inboundTypes {
		h[typ] = func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			return p.Activity(ctx, tx, e.AccountID, app.ActivityInbound, e.OccurredAt)
		}
	}
	for _, typ := range PaymentTypes {
		h[typ] = func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			var d paymentData
			if err := e.Decode(&d); err != nil {
				return err
			}
			pe := health.PaymentEvent{Type: or(d.Type, strings.TrimPrefix(e.Type, "payment.")), Status: d.Status,
				CancelAtPeriodEnd: d.CancelAtPeriodEnd != nil && *d.CancelAtPeriodEnd}
			return p.Payment(ctx, tx, or(d.AccountID, e.AccountID), pe, e.OccurredAt)
		}
	}
	return h
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func orTime(t, fallback time.Time) time.Time {
	if t.IsZero() {
		return fallback
	}
	return t
}
