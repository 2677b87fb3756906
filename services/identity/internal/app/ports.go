// Package app holds identity's use cases, one type per use case with a Handle method, and the
// outbound interfaces they need (implemented in adapters).
package app

import (
	"context"
	"net/netip"
	"time"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// PasswordHasher hashes passwords and checks them against stored hashes.
type PasswordHasher interface {
	Hash(password string) (string, error)
	Verify(password, hash string) (bool, error)
}

// IssuedToken is a signed token and when it stops being valid.
type IssuedToken struct {
	Value     string
	ExpiresAt time.Time
}

// TokenIssuer signs tokens for accounts.
type TokenIssuer interface {
	Issue(ctx context.Context, a *account.Account, now time.Time) (IssuedToken, error)
}

// TokenVerifier checks a token's signature and claims.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (authjwt.Caller, error)
}

// LoginThrottle limits password attempts per client address and per email address.
type LoginThrottle interface {
	AllowLogin(ctx context.Context, ip netip.Addr, email string) error
}

// Clock is the time source; tests pass a fixed one.
type Clock func() time.Time

// Event types identity publishes.
const (
	EventAccountCreated     = "account.created"
	EventAccountLogin       = "account.login"
	EventAccountPlanChanged = "account.plan_changed"
)

// AccountCreatedData is the payload of account.created.
type AccountCreatedData struct {
	AccountID    string       `json:"accountId"`
	Email        string       `json:"email"`
	Plan         account.Plan `json:"plan"`
	Role         account.Role `json:"role"`
	OwnerID      string       `json:"ownerId,omitempty"`
	BusinessName string       `json:"businessName"`
	OwnerName    string       `json:"ownerName"`
	CreatedAt    time.Time    `json:"createdAt"`
}

func accountCreated(a *account.Account) account.Event {
	owner := a.ID()
	if a.Role() == account.RoleClient {
		owner = a.OwnerID()
	}
	return account.Event{Type: EventAccountCreated, AccountID: owner, Data: AccountCreatedData{
		AccountID: a.ID(), Email: a.Email(), Plan: a.Plan(), Role: a.Role(), OwnerID: a.OwnerID(),
		BusinessName: a.BusinessName(), OwnerName: a.OwnerName(), CreatedAt: a.CreatedAt(),
	}}
}

// PlanChangedData is the payload of account.plan_changed.
type PlanChangedData struct {
	AccountID    string       `json:"accountId"`
	Plan         account.Plan `json:"plan"`
	PreviousPlan account.Plan `json:"previousPlan"`
	At           time.Time    `json:"at"`
}
