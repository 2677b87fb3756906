package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// CreateAccount creates an owner account (registration is not public: operators and the local
// stack's seed use it through the CLI).
type CreateAccount struct {
	Accounts account.Repository
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
	if err := account.ValidateNewPassword(cmd.Password); err != nil {
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
	if err := h.Accounts.Create(ctx, acc, accountCreated(acc)); err != nil {
		if errors.Is(err, account.ErrEmailTaken) {
			return nil, apperr.Conflict("email_taken", "an account with this email exists")
		}
		return nil, err
	}
	return acc, nil
}

// SetPlan moves an owner to another plan, by id or email.
type SetPlan struct {
	Accounts account.Repository
	Now      Clock
}

func (h *SetPlan) Handle(ctx context.Context, accountID, plan string) (*account.Account, error) {
	p, err := account.ParsePlan(plan)
	if err != nil {
		return nil, err
	}
	return h.Accounts.Update(ctx, accountID, func(a *account.Account) ([]account.Event, error) {
		return changePlan(a, p, h.Now)
	})
}

func changePlan(a *account.Account, p account.Plan, now Clock) ([]account.Event, error) {
	previous := a.Plan()
	at := now()
	changed, err := a.ChangePlan(p, at)
	if err != nil || !changed {
		return nil, err
	}
	return []account.Event{{Type: EventAccountPlanChanged, AccountID: a.ID(),
		Data: PlanChangedData{AccountID: a.ID(), Plan: p, PreviousPlan: previous, At: at}}}, nil
}

// SetPassword replaces an owner's password.
type SetPassword struct {
	Accounts account.Repository
	Hasher   PasswordHasher
	Now      Clock
}

func (h *SetPassword) Handle(ctx context.Context, accountID, password string) error {
	if err := account.ValidateNewPassword(password); err != nil {
		return err
	}
	hash, err := h.Hasher.Hash(ctx, password)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	_, err = h.Accounts.Update(ctx, accountID, func(a *account.Account) ([]account.Event, error) {
		return nil, a.SetPasswordHash(hash, h.Now())
	})
	return err
}

// Disable stops an account from signing in and makes its tokens fail verification.
type Disable struct {
	Accounts account.Repository
	Now      Clock
}

func (h *Disable) Handle(ctx context.Context, accountID string) error {
	_, err := h.Accounts.Update(ctx, accountID, func(a *account.Account) ([]account.Event, error) {
		a.Disable(h.Now())
		return nil, nil
	})
	return err
}

// FindAccount finds the account an operator names: any account by id (acc_...), or an owner by
// email.
type FindAccount struct {
	Accounts account.Repository
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
	Accounts account.Repository
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
