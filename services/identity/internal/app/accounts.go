package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// CreateAccount creates an owner account (registration is not public: operators and the local
// stack's seed use it through the CLI).
type CreateAccount struct {
	Tx       Transactor
	Accounts Accounts
	Outbox   Outbox
	Hasher   PasswordHasher
	Now      Clock
}

// CreateAccountCommand describes the new owner.
type CreateAccountCommand struct {
	Email        string
	Password     string
	Plan         string
	BusinessName string
}

func (h *CreateAccount) Handle(ctx context.Context, cmd CreateAccountCommand) (*account.Account, error) {
	plan, err := account.ParsePlan(cmd.Plan)
	if err != nil {
		return nil, err
	}
	if err := account.ValidateNewPassword("password", cmd.Password); err != nil {
		return nil, err
	}
	hash, err := h.Hasher.Hash(ctx, cmd.Password)
	if err != nil {
		return nil, fmt.Errorf("hash password: %w", err)
	}
	acc, err := account.NewOwner(ids.New("acc"), cmd.Email, hash, plan, cmd.BusinessName, h.Now())
	if err != nil {
		return nil, err
	}
	if err := create(ctx, h.Tx, h.Accounts, h.Outbox, acc); err != nil {
		if errors.Is(err, account.ErrEmailTaken) {
			return nil, apperr.Conflict("email_taken", "an account with this email exists")
		}
		return nil, err
	}
	return acc, nil
}

// SetPlan moves an account to another plan, by id or email; a client's is at most its owner's.
type SetPlan struct {
	Accounts Accounts
	Outbox   Outbox
	Now      Clock
}

func (h *SetPlan) Handle(ctx context.Context, accountID, plan string) (*account.Account, error) {
	p, err := account.ParsePlan(plan)
	if err != nil {
		return nil, err
	}
	return h.Accounts.Update(ctx, accountID, func(ctx context.Context, a *account.Account) error {
		if a.Role() == account.RoleClient {
			owner, err := h.Accounts.ByID(ctx, a.OwnerID())
			if err != nil {
				return fmt.Errorf("load owner: %w", err)
			}
			p = p.AtMost(owner.Plan())
		}
		return changeOwnerPlan(ctx, h.Accounts, h.Outbox, a, p, h.Now)
	})
}

// changeOwnerPlan moves a to p, and a's clients on a plan above p down to p in the same
// transaction: a client's plan is its owner's entitlement and follows a downgrade or a
// cancellation at once. An upgrade leaves the clients where they are.
func changeOwnerPlan(ctx context.Context, accounts Accounts, outbox Outbox, a *account.Account, p account.Plan, now Clock) error {
	if err := changePlan(ctx, outbox, a, p, now); err != nil || a.Role() != account.RoleOwner {
		return err
	}
	clients, err := accounts.List(ctx, account.ListFilter{OwnerID: a.ID()})
	if err != nil {
		return fmt.Errorf("list clients: %w", err)
	}
	for _, c := range clients {
		if c.Plan().AtMost(p) == c.Plan() {
			continue
		}
		if _, err := accounts.Update(ctx, c.ID(), func(ctx context.Context, c *account.Account) error {
			return changePlan(ctx, outbox, c, c.Plan().AtMost(p), now)
		}); err != nil {
			return fmt.Errorf("lower client %s: %w", c.ID(), err)
		}
	}
	return nil
}

// changePlan moves a to p and, when that changed it, publishes account.plan_changed.
func changePlan(ctx context.Context, outbox Outbox, a *account.Account, p account.Plan, now Clock) error {
	previous := a.Plan()
	at := now()
	changed, err := a.ChangePlan(p, at)
	if err != nil || !changed {
		return err
	}
	return outbox.Publish(ctx, contracts.Event{Type: identityevents.AccountPlanChanged, AccountID: a.ID(),
		Data: identityevents.AccountPlanChangedData{AccountID: a.ID(), Plan: string(p), PreviousPlan: string(previous), At: isotime.Of(at)}})
}

// SetPassword replaces an account's password (the operator's command) and, like a change by
// the account itself, revokes its earlier tokens.
type SetPassword struct {
	Accounts Accounts
	Keys     APIKeys
	Outbox   Outbox
	Hasher   PasswordHasher
	Now      Clock
}

func (h *SetPassword) Handle(ctx context.Context, accountID, password string) error {
	if err := account.ValidateNewPassword("password", password); err != nil {
		return err
	}
	hash, err := h.Hasher.Hash(ctx, password)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	return setPassword(ctx, h.Accounts, h.Keys, h.Outbox, accountID, hash, h.Now())
}

// Disable stops an account from signing in and revokes its tokens and keys: identity refuses to
// exchange its keys, and account.revoked makes every service refuse its tokens within seconds.
type Disable struct {
	Accounts Accounts
	Outbox   Outbox
	Now      Clock
}

func (h *Disable) Handle(ctx context.Context, accountID string) error {
	_, err := h.Accounts.Update(ctx, accountID, func(ctx context.Context, a *account.Account) error {
		nbf := a.Disable(h.Now())
		return h.Outbox.Publish(ctx, revoked(a.ID(), "", nbf, identityevents.RevokedAccountDisabled))
	})
	return err
}

// FindAccount finds the account an operator names: any account by id (acc_...), or an owner by
// email.
type FindAccount struct {
	Accounts Accounts
}

func (h *FindAccount) Handle(ctx context.Context, idOrEmail string) (*account.Account, error) {
	if ids.Valid("acc", idOrEmail) {
		return h.Accounts.ByID(ctx, idOrEmail)
	}
	email, err := account.NormalizeEmail(idOrEmail)
	if err != nil {
		return nil, err
	}
	return h.Accounts.OwnerByEmail(ctx, email)
}

// ListAccounts lists the owners, or, when clientsOf names an owner (by id or email), its clients.
type ListAccounts struct {
	Accounts Accounts
}

func (h *ListAccounts) Handle(ctx context.Context, clientsOf string) ([]*account.Account, error) {
	var filter account.ListFilter
	if clientsOf != "" {
		owner, err := (&FindAccount{Accounts: h.Accounts}).Handle(ctx, clientsOf)
		if err != nil {
			return nil, err
		}
		filter.OwnerID = owner.ID()
	}
	return h.Accounts.List(ctx, filter)
}
