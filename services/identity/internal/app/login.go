package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// ErrInvalidCredentials is the one answer to a failed login: it never says which part was wrong.
var ErrInvalidCredentials = apperr.Unauthenticated("invalid_credentials", "email or password is incorrect")

// Login exchanges an email and password for a token: an owner's, or an active client's.
type Login struct {
	Accounts Accounts
	Outbox   Outbox
	Hasher   PasswordHasher
	Tokens   TokenIssuer
	Throttle LoginThrottle
	Now      Clock
	// dummyHash is compared against when the email is unknown, so both failures cost the same time.
	dummyHash string
}

// NewLogin builds the use case with the hash used for unknown emails, at the current parameters.
func NewLogin(accounts Accounts, outbox Outbox, hasher PasswordHasher, tokens TokenIssuer, throttle LoginThrottle, now Clock) (*Login, error) {
	dummy, err := hasher.Unmatchable()
	if err != nil {
		return nil, fmt.Errorf("dummy hash: %w", err)
	}
	return &Login{Accounts: accounts, Outbox: outbox, Hasher: hasher, Tokens: tokens, Throttle: throttle, Now: now, dummyHash: dummy}, nil
}

// LoginCommand is what the caller sends.
type LoginCommand struct {
	Email    string
	Password string
	ClientIP netip.Addr
}

// LoginResult is what a successful login returns.
type LoginResult struct {
	Token     string
	Email     string
	Plan      account.Plan
	ExpiresAt time.Time
}

func (h *Login) Handle(ctx context.Context, cmd LoginCommand) (LoginResult, error) {
	if cmd.Email == "" {
		return LoginResult{}, apperr.MissingField("email")
	}
	if cmd.Password == "" {
		return LoginResult{}, apperr.MissingField("password")
	}
	if len(cmd.Password) > account.MaxPasswordLength {
		return LoginResult{}, ErrInvalidCredentials
	}
	email, err := account.NormalizeEmail(cmd.Email)
	if err != nil {
		return LoginResult{}, err
	}
	if err := h.Throttle.Admit(ctx, cmd.ClientIP, email); err != nil {
		return LoginResult{}, err
	}

	acc, err := h.Accounts.SignInByEmail(ctx, email)
	if errors.Is(err, account.ErrNotFound) {
		if _, err := h.Hasher.Verify(ctx, cmd.Password, h.dummyHash); err != nil {
			return LoginResult{}, err
		}
		return LoginResult{}, h.failed(ctx, cmd.ClientIP, email)
	}
	if err != nil {
		return LoginResult{}, fmt.Errorf("load account: %w", err)
	}
	verified := acc.PasswordHash()
	ok, err := h.Hasher.Verify(ctx, cmd.Password, verified)
	if err != nil {
		return LoginResult{}, fmt.Errorf("verify password: %w", err)
	}
	if !ok || !acc.CanSignIn() {
		return LoginResult{}, h.failed(ctx, cmd.ClientIP, email)
	}

	rehashed := h.rehash(ctx, cmd.Password, verified)
	now := h.Now()
	tok, err := h.Tokens.Issue(ctx, acc, now)
	if err != nil {
		return LoginResult{}, fmt.Errorf("issue token: %w", err)
	}
	_, err = h.Accounts.Update(ctx, acc.ID(), func(ctx context.Context, a *account.Account) error {
		if rehashed != "" && a.PasswordHash() == verified { // unless the password changed meanwhile
			if err := a.SetPasswordHash(rehashed, now); err != nil {
				return err
			}
		}
		a.RecordLogin(now)
		return h.Outbox.Publish(ctx, loggedIn(a, now))
	})
	if err != nil {
		return LoginResult{}, fmt.Errorf("record login: %w", err)
	}
	if err := h.Throttle.Succeeded(ctx, cmd.ClientIP, email); err != nil {
		slog.WarnContext(ctx, "sign-in address not remembered", "error", err)
	}
	return LoginResult{Token: tok.Value, Email: acc.Email(), Plan: acc.Plan(), ExpiresAt: tok.ExpiresAt}, nil
}

// rehash returns a hash of password with the current parameters when the stored one was made
// with others, or "" when it is current or no hashing capacity is free (the next sign-in retries).
func (h *Login) rehash(ctx context.Context, password, stored string) string {
	if !h.Hasher.Outdated(stored) {
		return ""
	}
	hash, err := h.Hasher.Hash(ctx, password)
	if err != nil {
		slog.InfoContext(ctx, "password not rehashed with the current parameters", "error", err)
		return ""
	}
	return hash
}

// failed counts a failed attempt and gives the one answer to it.
func (h *Login) failed(ctx context.Context, ip netip.Addr, email string) error {
	if err := h.Throttle.Failed(ctx, ip, email); err != nil {
		slog.WarnContext(ctx, "failed sign-in not counted", "error", err)
	}
	return ErrInvalidCredentials
}
