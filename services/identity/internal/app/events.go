package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// CreateClientCommand is an inbound new_client: the client's details as the integrator sent
// them, for the owner whose webhook secret received it.
type CreateClientCommand struct {
	OwnerID      string
	BusinessName string
	Email        string
	OwnerName    string
	Phone        string
	Plan         string
}

// CreateClient turns an inbound new_client event into an invited client of the owner whose
// webhook secret received it, as POST /api/clients does (the owner renews the invitation there
// to get a token to pass on), within the same plan and allowance. Redelivery is harmless: a
// client that exists is left as it is. A refusal (the owner's plan, its client allowance, details
// that do not make a client) is returned as the apperr it is, for the event port to record.
type CreateClient struct {
	Accounts Accounts
	Outbox   Outbox
	Now      Clock
}

func (h *CreateClient) Handle(ctx context.Context, d CreateClientCommand) error {
	if d.Plan != "" {
		if _, perr := account.ParsePlan(d.Plan); perr != nil {
			slog.InfoContext(ctx, "new_client plan not recognised, using free", "plan", d.Plan)
			d.Plan = ""
		}
	}
	_, hash, err := newInvitation()
	if err != nil {
		return err
	}
	err = addClient(ctx, h.Accounts, h.Outbox, d.OwnerID, account.ClientDetails{
		Email: d.Email, BusinessName: d.BusinessName, OwnerName: d.OwnerName, Phone: d.Phone, Plan: d.Plan,
	}, hash, h.Now(),
		func(_ context.Context, a *account.Account) (*account.Account, error) { return a, nil },
		func(*account.Account) {})
	switch {
	case errors.Is(err, account.ErrNotFound):
		slog.WarnContext(ctx, "new_client for unknown owner dropped", "owner_id", d.OwnerID)
		return nil
	case errors.Is(err, account.ErrEmailTaken):
		return nil // a redelivery racing the first delivery made the client
	}
	return err
}

// ApplyPaymentCommand is the part of a forwarded payment event identity needs.
type ApplyPaymentCommand struct {
	Type      string // the processor's event type, e.g. customer.subscription.updated
	AccountID string
	Plan      string
	Status    string
}

// ApplyPayment keeps an owner's plan in step with the payment processor: a completed checkout or
// an active subscription sets the paid plan, a deleted subscription returns the account to free.
type ApplyPayment struct {
	Accounts Accounts
	Outbox   Outbox
	Now      Clock
}

func (h *ApplyPayment) Handle(ctx context.Context, d ApplyPaymentCommand) error {
	var target account.Plan
	switch d.Type {
	case integrationsevents.CheckoutSessionCompleted:
		p, err := account.ParsePlan(d.Plan)
		if err != nil {
			return nil //nolint:nilerr // an unknown plan name in a processor event is not ours to fix
		}
		target = p
	case integrationsevents.SubscriptionUpdated:
		p, err := account.ParsePlan(d.Plan)
		if err != nil || !strings.EqualFold(d.Status, "active") && !strings.EqualFold(d.Status, "trialing") {
			return nil //nolint:nilerr // only an active subscription with a known plan changes the plan
		}
		target = p
	case integrationsevents.SubscriptionDeleted:
		target = account.PlanFree
	default:
		return nil
	}
	if d.AccountID == "" {
		return nil
	}
	_, err := h.Accounts.Update(ctx, d.AccountID, func(ctx context.Context, a *account.Account) error {
		if a.Role() != account.RoleOwner {
			return nil
		}
		return changeOwnerPlan(ctx, h.Accounts, h.Outbox, a, target, h.Now)
	})
	if errors.Is(err, account.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("apply %s: %w", d.Type, err)
	}
	return nil
}

// RecordHealthCommand is a client's health as analytics computed it at At.
type RecordHealthCommand struct {
	AccountID string
	Score     int
	Tier      string
	At        time.Time
}

// RecordHealth keeps a client's latest health (analytics' health.scored) for its owner's list.
type RecordHealth struct {
	Accounts Accounts
}

func (h *RecordHealth) Handle(ctx context.Context, d RecordHealthCommand) error {
	_, err := h.Accounts.Update(ctx, d.AccountID, func(_ context.Context, a *account.Account) error {
		a.RecordHealth(d.Score, d.Tier, d.At)
		return nil
	})
	if errors.Is(err, account.ErrNotFound) {
		return nil // an account identity does not know (deleted) has no list to be in
	}
	return err
}
