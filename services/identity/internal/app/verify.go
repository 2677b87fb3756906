package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// VerifyToken confirms that a token is still active: signature and claims hold and the account
// it names still exists and is enabled.
type VerifyToken struct {
	Accounts Accounts
	Tokens   TokenVerifier
}

// VerifyResult describes an active token. Plan is the account's current plan, which may have
// changed since the token was issued.
type VerifyResult struct {
	Email     string
	Plan      account.Plan
	ExpiresAt time.Time
}

var errTokenRevoked = apperr.Unauthenticated("invalid_token", "token was revoked")

var errAccountInactive = apperr.Unauthenticated("invalid_token", "token's account is disabled or no longer exists")

// Handle checks a token or an API key; the account's revocation applies here at once, before
// any other service hears of it.
func (h *VerifyToken) Handle(ctx context.Context, credential string) (VerifyResult, error) {
	caller, err := h.Tokens.Authenticate(ctx, credential)
	if err != nil {
		return VerifyResult{}, err
	}
	acc, err := h.Accounts.ByID(ctx, caller.AccountID)
	if errors.Is(err, account.ErrNotFound) {
		return VerifyResult{}, errAccountInactive
	}
	if err != nil {
		return VerifyResult{}, fmt.Errorf("load account: %w", err)
	}
	if !acc.CanSignIn() {
		return VerifyResult{}, errAccountInactive
	}
	if acc.TokenRevoked(caller.IssuedAt) {
		return VerifyResult{}, errTokenRevoked
	}
	return VerifyResult{Email: acc.Email(), Plan: acc.Plan(), ExpiresAt: caller.ExpiresAt}, nil
}
