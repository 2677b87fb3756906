// Package account holds the account entity: an owner that signs in to bizassist, or a client
// account that belongs to an owner (a business the owner serves). Invariants live here, I/O does not.
package account

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bizassist/bizassist/libs/apperr"
)

// Plan is the commercial plan of an account.
type Plan string

const (
	PlanFree      Plan = "free"
	PlanGrowth    Plan = "growth"
	PlanFullStack Plan = "full_stack"
)

// ParsePlan accepts the plan identifiers; "full stack" and "full-stack" are accepted spellings.
func ParsePlan(s string) (Plan, error) {
	switch strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "_"), "-", "_") {
	case "free":
		return PlanFree, nil
	case "growth":
		return PlanGrowth, nil
	case "full_stack":
		return PlanFullStack, nil
	}
	return "", apperr.InvalidField("plan", fmt.Sprintf("unknown plan %q (want free, growth or full_stack)", s))
}

// Role says whether an account can sign in (owner) or is one of an owner's clients.
type Role string

const (
	RoleOwner  Role = "owner"
	RoleClient Role = "client"
)

// Status is active or disabled; disabled accounts cannot sign in and their tokens stop verifying.
type Status string

const (
	StatusActive   Status = "active"
	StatusDisabled Status = "disabled"
)

// ErrDisabled is returned for operations a disabled account may not perform.
var ErrDisabled = errors.New("account is disabled")

// Account is an owner or client account.
type Account struct {
	id           string
	email        string
	passwordHash string
	plan         Plan
	role         Role
	ownerID      string
	businessName string
	ownerName    string
	phone        string
	status       Status
	createdAt    time.Time
	updatedAt    time.Time
}

// NewOwner creates an owner account that signs in with passwordHash.
func NewOwner(id, email, passwordHash string, plan Plan, businessName string, now time.Time) (*Account, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	if passwordHash == "" {
		return nil, errors.New("owner account needs a password hash")
	}
	if _, err := ParsePlan(string(plan)); err != nil {
		return nil, err
	}
	return &Account{id: id, email: e, passwordHash: passwordHash, plan: plan, role: RoleOwner,
		businessName: strings.TrimSpace(businessName), status: StatusActive, createdAt: now, updatedAt: now}, nil
}

// ClientDetails are what an inbound new_client event says about a client.
type ClientDetails struct {
	Email        string
	BusinessName string
	OwnerName    string
	Phone        string
	Plan         string
}

// NewClient creates a client account of owner. Clients do not sign in, so they have no password.
func NewClient(id string, owner *Account, d ClientDetails, now time.Time) (*Account, error) {
	if owner.role != RoleOwner {
		return nil, errors.New("clients belong to owner accounts")
	}
	e, err := NormalizeEmail(d.Email)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(d.BusinessName) == "" {
		return nil, apperr.MissingField("businessName")
	}
	plan := PlanFree
	if d.Plan != "" {
		if plan, err = ParsePlan(d.Plan); err != nil {
			return nil, err
		}
	}
	return &Account{id: id, email: e, plan: plan, role: RoleClient, ownerID: owner.id,
		businessName: strings.TrimSpace(d.BusinessName), ownerName: strings.TrimSpace(d.OwnerName),
		phone: strings.TrimSpace(d.Phone), status: StatusActive, createdAt: now, updatedAt: now}, nil
}

// Snapshot is the stored form of an account.
type Snapshot struct {
	ID, Email, PasswordHash, BusinessName, OwnerName, Phone, OwnerID string
	Plan                                                             Plan
	Role                                                             Role
	Status                                                           Status
	CreatedAt, UpdatedAt                                             time.Time
}

// FromSnapshot rebuilds an account read from storage; it trusts what was stored.
func FromSnapshot(s Snapshot) *Account {
	return &Account{id: s.ID, email: s.Email, passwordHash: s.PasswordHash, plan: s.Plan, role: s.Role,
		ownerID: s.OwnerID, businessName: s.BusinessName, ownerName: s.OwnerName, phone: s.Phone,
		status: s.Status, createdAt: s.CreatedAt, updatedAt: s.UpdatedAt}
}

// Snapshot returns the stored form.
func (a *Account) Snapshot() Snapshot {
	return Snapshot{ID: a.id, Email: a.email, PasswordHash: a.passwordHash, Plan: a.plan, Role: a.role,
		OwnerID: a.ownerID, BusinessName: a.businessName, OwnerName: a.ownerName, Phone: a.phone,
		Status: a.status, CreatedAt: a.createdAt, UpdatedAt: a.updatedAt}
}

func (a *Account) ID() string           { return a.id }
func (a *Account) Email() string        { return a.email }
func (a *Account) Plan() Plan           { return a.plan }
func (a *Account) Role() Role           { return a.role }
func (a *Account) OwnerID() string      { return a.ownerID }
func (a *Account) BusinessName() string { return a.businessName }
func (a *Account) OwnerName() string    { return a.ownerName }
func (a *Account) PasswordHash() string { return a.passwordHash }
func (a *Account) CreatedAt() time.Time { return a.createdAt }
func (a *Account) Active() bool         { return a.status == StatusActive }

// CanSignIn reports whether the account may exchange a password for a token.
func (a *Account) CanSignIn() bool {
	return a.role == RoleOwner && a.status == StatusActive && a.passwordHash != ""
}

// ChangePlan moves the account to plan and reports whether anything changed.
func (a *Account) ChangePlan(plan Plan, now time.Time) (bool, error) {
	if _, err := ParsePlan(string(plan)); err != nil {
		return false, err
	}
	if a.plan == plan {
		return false, nil
	}
	a.plan, a.updatedAt = plan, now
	return true, nil
}

// SetPasswordHash replaces the password of an owner account.
func (a *Account) SetPasswordHash(hash string, now time.Time) error {
	if a.role != RoleOwner {
		return apperr.Invalid("not_an_owner", "client accounts do not sign in")
	}
	if hash == "" {
		return errors.New("empty password hash")
	}
	a.passwordHash, a.updatedAt = hash, now
	return nil
}

// Disable stops the account from signing in; its tokens stop verifying.
func (a *Account) Disable(now time.Time) {
	a.status, a.updatedAt = StatusDisabled, now
}

// NormalizeEmail validates an address and returns it lower-cased and trimmed.
func NormalizeEmail(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	if e == "" {
		return "", apperr.MissingField("email")
	}
	if len(e) > 254 {
		return "", apperr.InvalidField("email", "must be at most 254 characters")
	}
	addr, err := mail.ParseAddress(e)
	if err != nil || addr.Address != e || !strings.Contains(e[strings.LastIndex(e, "@")+1:], ".") {
		return "", apperr.InvalidField("email", "is not a valid email address")
	}
	return e, nil
}

// Password limits: long enough to matter, short enough that hashing cannot be used to exhaust CPU.
const (
	MinPasswordLength = 10
	MaxPasswordLength = 256
)

// ValidateNewPassword checks a password chosen for an account.
func ValidateNewPassword(p string) error {
	n := utf8.RuneCountInString(p)
	if n < MinPasswordLength {
		return apperr.InvalidField("password", fmt.Sprintf("must be at least %d characters", MinPasswordLength))
	}
	if len(p) > MaxPasswordLength {
		return apperr.InvalidField("password", fmt.Sprintf("must be at most %d bytes", MaxPasswordLength))
	}
	return nil
}
