// Package app holds identity's use cases, one type per use case with a Handle method, and the
// outbound interfaces they need (implemented in adapters).
package app

import (
	"context"
	"net/netip"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// PasswordHasher hashes passwords and checks them against stored hashes. Hash and Verify wait
// only briefly for hashing capacity and then fail with ErrHashingBusy.
type PasswordHasher interface {
	Hash(ctx context.Context, password string) (string, error)
	Verify(ctx context.Context, password, hash string) (bool, error)
	// Outdated reports a hash made with other parameters than new hashes get.
	Outdated(hash string) bool
}

// ErrHashingBusy refuses a request that found no hashing capacity within the short wait: a burst
// is answered at once with 503 instead of queueing without limit or running out of memory.
var ErrHashingBusy = apperr.Unavailable("auth_busy", "too many sign-ins are being checked right now; retry shortly").
	With("retryAfter", 1)

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

// LoginThrottle limits sign-in attempts per client address, and failed attempts per email: per
// email and client address, and per email from addresses it has not signed in from, so that
// nobody can lock the owner out of their own address by failing on purpose.
type LoginThrottle interface {
	// Admit counts the attempt against the client address and refuses a client whose failures
	// for email are spent; it takes nothing from the failure bounds.
	Admit(ctx context.Context, ip netip.Addr, email string) error
	// Failed counts a failed attempt against the failure bounds.
	Failed(ctx context.Context, ip netip.Addr, email string) error
	// Succeeded remembers ip as an address email signs in from.
	Succeeded(ctx context.Context, ip netip.Addr, email string) error
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
