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

// rank orders the plans by what they include.
func (p Plan) rank() int {
	switch p {
	case PlanGrowth:
		return 1
	case PlanFullStack:
		return 2
	}
	return 0
}

// AtMost is p, or limit when limit includes less: a client's plan is an entitlement its owner
// pays for, never above the owner's own.
func (p Plan) AtMost(limit Plan) Plan {
	if p.rank() > limit.rank() {
		return limit
	}
	return p
}

// MaxClients is how many clients (invited or active) an owner on plan may have: free owners
// none, growth 20, full_stack 100. Clients are paid for by the plan, and each one costs an
// invitation, which is the only way an owner learns anything about an email it does not hold.
func MaxClients(plan Plan) int {
	switch plan {
	case PlanGrowth:
		return 20
	case PlanFullStack:
		return 100
	}
	return 0
}

// ErrTooManyClients refuses a new client beyond MaxClients of the owner's plan.
var ErrTooManyClients = apperr.Conflict("too_many_clients", "this plan's client allowance is used up (growth 20, full_stack 100)")

// Role says whether an account is an owner or one of an owner's clients.
type Role string

const (
	RoleOwner  Role = "owner"
	RoleClient Role = "client"
)

// Status is invited (a client that has not accepted its invitation), active or disabled;
// disabled accounts cannot sign in and their tokens stop verifying.
type Status string

const (
	StatusInvited  Status = "invited"
	StatusActive   Status = "active"
	StatusDisabled Status = "disabled"
)

// InvitationLifetime is how long a client has to accept an invitation.
const InvitationLifetime = 7 * 24 * time.Hour

// ErrInvitationInvalid answers an invitation token that is unknown, used or expired alike.
var ErrInvitationInvalid = apperr.Invalid("invitation_invalid", "the invitation is unknown, already accepted or expired").
	With("field", "token")

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
	// tokensNotBefore refuses every token issued earlier (whole seconds, see RevokeTokens).
	tokensNotBefore time.Time
	lastLoginAt     time.Time
	inviteHash      string
	inviteExpiresAt time.Time
	// The health analytics last reported, and when it computed it; tier "" means none yet.
	healthScore int
	healthTier  string
	healthAt    time.Time
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

// NewClient creates a client account of owner, invited: it signs in once it accepts the
// invitation whose token hashes to inviteHash. Its plan is the one asked for (free by default)
// but never above the owner's.
func NewClient(id string, owner *Account, d ClientDetails, inviteHash string, now time.Time) (*Account, error) {
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
	return &Account{id: id, email: e, plan: plan.AtMost(owner.plan), role: RoleClient, ownerID: owner.id,
		businessName: strings.TrimSpace(d.BusinessName), ownerName: strings.TrimSpace(d.OwnerName),
		phone: strings.TrimSpace(d.Phone), status: StatusInvited, createdAt: now, updatedAt: now,
		inviteHash: inviteHash, inviteExpiresAt: now.Add(InvitationLifetime)}, nil
}

// CanInviteClients reports whether the account may invite clients: owners on a paid plan, the
// plans that manage clients (churn prediction is theirs too).
func (a *Account) CanInviteClients() bool {
	return a.role == RoleOwner && a.status == StatusActive && a.plan != PlanFree
}

// Reinvite replaces the invitation of a client that has not accepted yet.
func (a *Account) Reinvite(inviteHash string, now time.Time) error {
	if a.status != StatusInvited {
		return apperr.Conflict("client_exists", "this client has accepted its invitation already")
	}
	a.inviteHash, a.inviteExpiresAt, a.updatedAt = inviteHash, now.Add(InvitationLifetime), now
	return nil
}

// Accept activates an invited client with its chosen password; the invitation is used up.
func (a *Account) Accept(passwordHash string, now time.Time) error {
	if a.status != StatusInvited || a.inviteHash == "" || !now.Before(a.inviteExpiresAt) {
		return ErrInvitationInvalid
	}
	if passwordHash == "" {
		return errors.New("empty password hash")
	}
	a.passwordHash, a.status, a.inviteHash, a.inviteExpiresAt, a.updatedAt = passwordHash, StatusActive, "", time.Time{}, now
	return nil
}

// RecordHealth keeps the health analytics computed at at, unless a later one is known already
// (events arrive in any order); it reports whether it changed anything.
func (a *Account) RecordHealth(score int, tier string, at time.Time) bool {
	if tier == "" || !at.After(a.healthAt) {
		return false
	}
	a.healthScore, a.healthTier, a.healthAt = score, tier, at
	return true
}

// Health is the last reported score and tier; ok is false before the first.
func (a *Account) Health() (score int, tier string, ok bool) {
	return a.healthScore, a.healthTier, a.healthTier != ""
}

// RecordLogin notes a successful sign-in.
func (a *Account) RecordLogin(now time.Time) { a.lastLoginAt = now }

// RevokeTokens refuses every token issued before now and returns the not-before time. Token
// times are whole seconds, so it is the next whole second: a token issued in the same second as
// the change, before it, is refused too, and identity issues later ones no earlier than it.
func (a *Account) RevokeTokens(now time.Time) time.Time {
	nbf := now.Truncate(time.Second).Add(time.Second)
	if nbf.After(a.tokensNotBefore) {
		a.tokensNotBefore = nbf
	}
	return a.tokensNotBefore
}

// TokenIssuedAt is the issue time for a token made now: never before the not-before time.
func (a *Account) TokenIssuedAt(now time.Time) time.Time {
	if now.Before(a.tokensNotBefore) {
		return a.tokensNotBefore
	}
	return now
}

// TokenRevoked reports whether a token issued at iat is refused by a revocation.
func (a *Account) TokenRevoked(iat time.Time) bool { return iat.Before(a.tokensNotBefore) }

// Snapshot is the stored form of an account; zero times are absent.
type Snapshot struct {
	ID, Email, PasswordHash, BusinessName, OwnerName, Phone, OwnerID, InviteHash string
	Plan                                                                         Plan
	Role                                                                         Role
	Status                                                                       Status
	CreatedAt, UpdatedAt, TokensNotBefore, LastLoginAt, InviteExpiresAt          time.Time
	HealthScore                                                                  int
	HealthTier                                                                   string
	HealthAt                                                                     time.Time
}

// FromSnapshot rebuilds an account read from storage; it trusts what was stored.
func FromSnapshot(s Snapshot) *Account {
	return &Account{id: s.ID, email: s.Email, passwordHash: s.PasswordHash, plan: s.Plan, role: s.Role,
		ownerID: s.OwnerID, businessName: s.BusinessName, ownerName: s.OwnerName, phone: s.Phone,
		status: s.Status, createdAt: s.CreatedAt, updatedAt: s.UpdatedAt, tokensNotBefore: s.TokensNotBefore,
		lastLoginAt: s.LastLoginAt, inviteHash: s.InviteHash, inviteExpiresAt: s.InviteExpiresAt,
		healthScore: s.HealthScore, healthTier: s.HealthTier, healthAt: s.HealthAt}
}

// Snapshot returns the stored form.
func (a *Account) Snapshot() Snapshot {
	return Snapshot{ID: a.id, Email: a.email, PasswordHash: a.passwordHash, Plan: a.plan, Role: a.role,
		OwnerID: a.ownerID, BusinessName: a.businessName, OwnerName: a.ownerName, Phone: a.phone,
		Status: a.status, CreatedAt: a.createdAt, UpdatedAt: a.updatedAt, TokensNotBefore: a.tokensNotBefore,
		LastLoginAt: a.lastLoginAt, InviteHash: a.inviteHash, InviteExpiresAt: a.inviteExpiresAt,
		HealthScore: a.healthScore, HealthTier: a.healthTier, HealthAt: a.healthAt}
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
func (a *Account) Status() Status       { return a.status }
func (a *Account) LastLoginAt() time.Time {
	return a.lastLoginAt
}
func (a *Account) InviteExpiresAt() time.Time { return a.inviteExpiresAt }

// CanSignIn reports whether the account may exchange a password for a token: an active owner,
// or an active client that accepted its invitation.
func (a *Account) CanSignIn() bool {
	return a.status == StatusActive && a.passwordHash != ""
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

// SetPasswordHash replaces the password of an account that signs in.
func (a *Account) SetPasswordHash(hash string, now time.Time) error {
	if a.passwordHash == "" {
		return apperr.Invalid("no_password", "this account has not accepted its invitation yet")
	}
	if hash == "" {
		return errors.New("empty password hash")
	}
	a.passwordHash, a.updatedAt = hash, now
	return nil
}

// Disable stops the account from signing in and revokes its tokens; it returns the not-before
// time of that revocation.
func (a *Account) Disable(now time.Time) time.Time {
	a.status, a.updatedAt = StatusDisabled, now
	return a.RevokeTokens(now)
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

// ValidateNewPassword checks a password chosen for an account, sent in field.
func ValidateNewPassword(field, p string) error {
	n := utf8.RuneCountInString(p)
	if n < MinPasswordLength {
		return apperr.InvalidField(field, fmt.Sprintf("must be at least %d characters", MinPasswordLength))
	}
	if len(p) > MaxPasswordLength {
		return apperr.InvalidField(field, fmt.Sprintf("must be at most %d bytes", MaxPasswordLength))
	}
	return nil
}
