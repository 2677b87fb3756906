package app

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// errEmailRegistered is all a sign-up for a taken email learns.
var errEmailRegistered = apperr.Conflict("email_taken", "email already registered").With("field", "email")

// SignUp creates an owner on the free plan and signs it in.
type SignUp struct {
	Tx       Transactor
	Accounts Accounts
	Outbox   Outbox
	Hasher   PasswordHasher
	Tokens   TokenIssuer
	Now      Clock
}

// SignUpCommand is the public registration form.
type SignUpCommand struct {
	Email        string
	Password     string
	BusinessName string
}

func (h *SignUp) Handle(ctx context.Context, cmd SignUpCommand) (LoginResult, error) {
	email, err := account.NormalizeEmail(cmd.Email)
	if err != nil {
		return LoginResult{}, err
	}
	if err := account.ValidateNewPassword("password", cmd.Password); err != nil {
		return LoginResult{}, err
	}
	hash, err := h.Hasher.Hash(ctx, cmd.Password)
	if err != nil {
		return LoginResult{}, fmt.Errorf("hash password: %w", err)
	}
	now := h.Now()
	acc, err := account.NewOwner(ids.New("acc"), email, hash, account.PlanFree, cmd.BusinessName, now)
	if err != nil {
		return LoginResult{}, err
	}
	acc.RecordLogin(now)
	err = h.Tx.InTx(ctx, func(ctx context.Context) error {
		if err := h.Accounts.Create(ctx, acc); err != nil {
			return err
		}
		return h.Outbox.Publish(ctx, accountCreated(acc), loggedIn(acc, now))
	})
	if errors.Is(err, account.ErrEmailTaken) {
		return LoginResult{}, errEmailRegistered
	}
	if err != nil {
		return LoginResult{}, err
	}
	return issue(ctx, h.Tokens, acc, now)
}

// ChangePassword replaces the caller's password after checking the current one, and revokes
// every token issued before and every API key of the account (account.revoked, see setPassword).
type ChangePassword struct {
	Accounts Accounts
	Keys     APIKeys
	Outbox   Outbox
	Hasher   PasswordHasher
	Throttle LoginThrottle
	Now      Clock
}

// ChangePasswordCommand is the signed-in caller's request.
type ChangePasswordCommand struct {
	AccountID       string
	CurrentPassword string
	NewPassword     string
	ClientIP        netip.Addr
}

var errWrongPassword = apperr.Forbidden("current_password_incorrect", "the current password is incorrect").
	With("field", "currentPassword")

func (h *ChangePassword) Handle(ctx context.Context, cmd ChangePasswordCommand) error {
	if cmd.CurrentPassword == "" {
		return apperr.MissingField("currentPassword")
	}
	if err := account.ValidateNewPassword("newPassword", cmd.NewPassword); err != nil {
		return err
	}
	acc, err := h.Accounts.ByID(ctx, cmd.AccountID)
	if err != nil {
		return fmt.Errorf("load account: %w", err)
	}
	// The same failure bounds as sign-in, so a stolen token cannot guess the password faster.
	if err := h.Throttle.Admit(ctx, cmd.ClientIP, acc.Email()); err != nil {
		return err
	}
	ok, err := h.Hasher.Verify(ctx, cmd.CurrentPassword, acc.PasswordHash())
	if err != nil {
		return err
	}
	if !ok || len(cmd.CurrentPassword) > account.MaxPasswordLength {
		_ = h.Throttle.Failed(ctx, cmd.ClientIP, acc.Email())
		return errWrongPassword
	}
	hash, err := h.Hasher.Hash(ctx, cmd.NewPassword)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	return setPassword(ctx, h.Accounts, h.Keys, h.Outbox, acc.ID(), hash, h.Now())
}

// setPassword stores hash and, in the same transaction, revokes every earlier credential of the
// account: its tokens and its API keys (a new password answers a leaked one, and a key made with
// the old password may have leaked with it).
func setPassword(ctx context.Context, accounts Accounts, keys APIKeys, outbox Outbox, accountID, hash string, now time.Time) error {
	_, err := accounts.Update(ctx, accountID, func(ctx context.Context, a *account.Account) error {
		if err := a.SetPasswordHash(hash, now); err != nil {
			return err
		}
		nbf := a.RevokeTokens(now)
		deleted, err := keys.DeleteAll(ctx, a.ID(), now)
		if err != nil {
			return err
		}
		evs := []contracts.Event{revoked(a.ID(), "", nbf, identityevents.RevokedPasswordChanged)}
		for _, id := range deleted {
			evs = append(evs, revoked(a.ID(), id, now, identityevents.RevokedPasswordChanged))
		}
		return outbox.Publish(ctx, evs...)
	})
	return err
}

// issue signs a session token for acc.
func issue(ctx context.Context, tokens TokenIssuer, acc *account.Account, now time.Time) (LoginResult, error) {
	tok, err := tokens.Issue(ctx, acc, now)
	if err != nil {
		return LoginResult{}, fmt.Errorf("issue token: %w", err)
	}
	return LoginResult{Token: tok.Value, Email: acc.Email(), Plan: acc.Plan(), ExpiresAt: tok.ExpiresAt}, nil
}

// loggedIn is the account.login event of a sign-in (or a sign-up or accepted invitation, which
// sign in too).
func loggedIn(a *account.Account, at time.Time) contracts.Event {
	return contracts.Event{Type: identityevents.AccountLogin, AccountID: a.ID(),
		Data: identityevents.AccountLoginData{AccountID: a.ID(), Email: a.Email(), At: isotime.Of(at)}}
}
