package app

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// AccountCreated is the payload of identity's account.created.
type AccountCreated struct {
	AccountID string `json:"accountId"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	OwnerID   string `json:"ownerId"`
}

// AccountProjection keeps the accounts this service needs to know about.
type AccountProjection interface {
	// SaveAccount records the account and, for owners, their first secret hash; it is a no-op
	// for an account already recorded.
	SaveAccount(ctx context.Context, tx pgx.Tx, a AccountCreated, secretHash []byte) error
}

// ProjectAccount records a new account and gives owners a webhook secret. That first secret is
// never shown: an owner obtains a usable one by rotating it, which is how it is "shown once".
type ProjectAccount struct {
	Accounts AccountProjection
}

func (h ProjectAccount) Handle(ctx context.Context, tx pgx.Tx, a AccountCreated) error {
	if a.AccountID == "" || a.Email == "" || (a.Role != "owner" && a.Role != "client") {
		return fmt.Errorf("account.created without accountId, email or a known role: %+v", a)
	}
	var hash []byte
	if a.Role == "owner" {
		hash = domain.HashSecret(string(domain.NewAccountSecret()))
	}
	return h.Accounts.SaveAccount(ctx, tx, a, hash)
}

// Forward turns the events other services publish into outbound messages for the account's
// subscribers, planned in the consumer's transaction.
type Forward struct {
	Planner Planner
}

// LeadWritten plans new_lead deliveries.
func (h Forward) LeadWritten(ctx context.Context, tx pgx.Tx, accountID string, l domain.LeadWritten) error {
	msg, err := domain.NewLeadMessage(l)
	if err != nil {
		return err
	}
	_, err = h.Planner.Plan(ctx, tx, accountID, msg)
	return err
}

// HealthCritical plans health_score.critical deliveries.
func (h Forward) HealthCritical(ctx context.Context, tx pgx.Tx, accountID string, c domain.HealthCritical) error {
	msg, err := domain.HealthCriticalMessage(c)
	if err != nil {
		return err
	}
	_, err = h.Planner.Plan(ctx, tx, accountID, msg)
	return err
}
