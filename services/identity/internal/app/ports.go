// Package app holds identity's use cases, one type per use case with a Handle method, and the
// outbound interfaces they need (implemented in adapters).
package app

import (
	"context"
	"net/netip"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/credential"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
	"github.com/bizassist/bizassist/services/identity/internal/domain/apikey"
)

// Accounts stores accounts. Update runs fn on the current state inside one transaction with
// the row locked, and stores the result only when fn succeeds; the ctx fn gets carries that
// transaction, so the events fn publishes through the app's outbox commit with the change.
type Accounts interface {
	Create(ctx context.Context, a *account.Account) error
	ByID(ctx context.Context, id string) (*account.Account, error)
	OwnerByEmail(ctx context.Context, email string) (*account.Account, error)
	// SignInByEmail is the account that signs in with email (an owner or an active client).
	SignInByEmail(ctx context.Context, email string) (*account.Account, error)
	// ClientByEmail is owner's client with email.
	ClientByEmail(ctx context.Context, ownerID, email string) (*account.Account, error)
	// CountClients is how many clients of ownerID are invited or active.
	CountClients(ctx context.Context, ownerID string) (int, error)
	// IDByInvitation is the client whose pending invitation token hashes to inviteHash.
	IDByInvitation(ctx context.Context, inviteHash string) (string, error)
	Update(ctx context.Context, id string, fn func(ctx context.Context, a *account.Account) error) (*account.Account, error)
	List(ctx context.Context, f account.ListFilter) ([]*account.Account, error)
}

// APIKeys stores API keys. Deleted keys are gone for every method.
type APIKeys interface {
	// Create stores k unless its account has MaxPerAccount live keys (ErrTooMany).
	Create(ctx context.Context, k *apikey.Key) error
	List(ctx context.Context, accountID string) ([]*apikey.Key, error)
	// Delete removes accountID's key id (ErrNotFound when it has none by that id).
	Delete(ctx context.Context, accountID, id string, now time.Time) error
	// DeleteAll removes every live key of accountID and returns their ids.
	DeleteAll(ctx context.Context, accountID string, now time.Time) ([]string, error)
	ByHash(ctx context.Context, hash string) (*apikey.Key, error)
	// Touch records a use at now unless one was recorded in the last minute.
	Touch(ctx context.Context, id string, now time.Time) error
}

// PasswordHasher hashes passwords and checks them against stored hashes. Hash and Verify wait
// only briefly for hashing capacity and then fail with ErrHashingBusy.
type PasswordHasher interface {
	Hash(ctx context.Context, password string) (string, error)
	Verify(ctx context.Context, password, hash string) (bool, error)
	// Outdated reports a hash made with other parameters than new hashes get.
	Outdated(hash string) bool
	// Unmatchable is a hash that no password matches and that costs as much to check as a new one.
	Unmatchable() (string, error)
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

// TokenIssuer signs tokens for accounts, never issued before the account's not-before time.
type TokenIssuer interface {
	// Issue signs a 24-hour session token.
	Issue(ctx context.Context, a *account.Account, now time.Time) (IssuedToken, error)
	// IssueForKey signs a short-lived token for a's API key keyID (its akid claim).
	IssueForKey(ctx context.Context, a *account.Account, keyID string, now time.Time) (IssuedToken, error)
}

// TokenVerifier checks a credential (an access token or an API key) and returns its caller.
type TokenVerifier interface {
	Authenticate(ctx context.Context, credential string) (credential.Caller, error)
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

// Outbox publishes events with the writes of the transaction ctx carries (the consumer's, a
// Transactor's or a repository Update's), so an event commits if and only if its change does.
type Outbox interface {
	Publish(ctx context.Context, evs ...contracts.Event) error
}

// Transactor runs fn as one unit of work: fn's ctx carries the transaction that repositories and
// the outbox join.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// accountCreated is the account.created event of a new account; its envelope names the owner.
func accountCreated(a *account.Account) contracts.Event {
	owner := a.ID()
	if a.Role() == account.RoleClient {
		owner = a.OwnerID()
	}
	return contracts.Event{Type: identityevents.AccountCreated, AccountID: owner, Data: identityevents.AccountCreatedData{
		AccountID: a.ID(), Email: a.Email(), Plan: string(a.Plan()), Role: string(a.Role()), OwnerID: a.OwnerID(),
		BusinessName: a.BusinessName(), OwnerName: a.OwnerName(), CreatedAt: isotime.Of(a.CreatedAt()),
	}}
}

// create stores a new account and publishes its account.created in one unit of work.
func create(ctx context.Context, tx Transactor, accounts Accounts, outbox Outbox, a *account.Account) error {
	return tx.InTx(ctx, func(ctx context.Context) error {
		if err := accounts.Create(ctx, a); err != nil {
			return err
		}
		return outbox.Publish(ctx, accountCreated(a))
	})
}
