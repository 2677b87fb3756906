package app

import (
	"context"
	"fmt"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// NewAccount is an account identity created: what this service keeps of it.
type NewAccount struct {
	AccountID string
	Email     string
	Role      string // owner or client
	OwnerID   string // clients only
}

// AccountProjection keeps the accounts this service needs to know about.
type AccountProjection interface {
	// SaveAccount records the account and, for owners, their first secret hash; it is a no-op
	// for an account already recorded.
	SaveAccount(ctx context.Context, a NewAccount, secretHash []byte) error
}

// ProjectAccount records a new account and gives owners a webhook secret. That first secret is
// never shown: an owner obtains a usable one by rotating it, which is how it is "shown once".
type ProjectAccount struct {
	Accounts AccountProjection
}

func (h ProjectAccount) Handle(ctx context.Context, a NewAccount) error {
	if a.AccountID == "" || a.Email == "" || (a.Role != "owner" && a.Role != "client") {
		return fmt.Errorf("account.created without accountId, email or a known role: %+v", a)
	}
	var hash []byte
	if a.Role == "owner" {
		hash = domain.HashSecret(string(domain.NewAccountSecret()))
	}
	return h.Accounts.SaveAccount(ctx, a, hash)
}

// ForwardLeadCommand is a lead written to an account's sheet.
type ForwardLeadCommand struct {
	AccountID string
	Lead      domain.LeadWritten
}

// ForwardLead plans new_lead deliveries to the account's subscribers.
type ForwardLead struct {
	Planner Planner
}

func (h ForwardLead) Handle(ctx context.Context, cmd ForwardLeadCommand) error {
	msg, err := domain.NewLeadMessage(cmd.Lead)
	if err != nil {
		return err
	}
	_, err = h.Planner.Plan(ctx, cmd.AccountID, msg)
	return err
}

// ForwardHealthCriticalCommand is a client of the account that entered the critical tier.
type ForwardHealthCriticalCommand struct {
	AccountID string
	Alert     domain.HealthCritical
}

// ForwardHealthCritical plans health_score.critical deliveries to the account's subscribers.
type ForwardHealthCritical struct {
	Planner Planner
}

func (h ForwardHealthCritical) Handle(ctx context.Context, cmd ForwardHealthCriticalCommand) error {
	msg, err := domain.HealthCriticalMessage(cmd.Alert)
	if err != nil {
		return err
	}
	_, err = h.Planner.Plan(ctx, cmd.AccountID, msg)
	return err
}
