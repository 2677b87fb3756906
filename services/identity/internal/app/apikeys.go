package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/credential"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/identity/internal/domain/apikey"
)

var errKeyNotFound = apperr.NotFound("key_not_found", "no such API key")

// CreateAPIKey makes an API key for an account. The key is returned once and stored as a hash.
type CreateAPIKey struct {
	Keys APIKeys
	Now  Clock
}

func (h *CreateAPIKey) Handle(ctx context.Context, accountID, name string) (*apikey.Key, string, error) {
	secret, err := credential.NewAPIKey()
	if err != nil {
		return nil, "", fmt.Errorf("generate api key: %w", err)
	}
	k, err := apikey.New(ids.New("apk"), accountID, name, secret[:credential.APIKeyShownLen], credential.HashAPIKey(secret), h.Now())
	if err != nil {
		return nil, "", err
	}
	if err := h.Keys.Create(ctx, k); err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// ListAPIKeys lists an account's live keys (never the keys themselves).
type ListAPIKeys struct {
	Keys APIKeys
}

func (h *ListAPIKeys) Handle(ctx context.Context, accountID string) ([]*apikey.Key, error) {
	return h.Keys.List(ctx, accountID)
}

// DeleteAPIKey deletes one of the account's keys and publishes account.revoked for it, so every
// service refuses the key and the tokens minted for it within seconds.
type DeleteAPIKey struct {
	Tx     Transactor
	Keys   APIKeys
	Outbox Outbox
	Now    Clock
}

func (h *DeleteAPIKey) Handle(ctx context.Context, accountID, id string) error {
	now := h.Now()
	err := h.Tx.InTx(ctx, func(ctx context.Context) error {
		if err := h.Keys.Delete(ctx, accountID, id, now); err != nil {
			return err
		}
		return h.Outbox.Publish(ctx, revoked(accountID, id, now, identityevents.RevokedKeyDeleted))
	})
	if errors.Is(err, apikey.ErrNotFound) {
		return errKeyNotFound
	}
	return err
}

// ExchangeAPIKey trades an API key for a short-lived token of its account, which verifiers
// cache: this is the only lookup a key costs, and it notes the key's last use.
type ExchangeAPIKey struct {
	Keys     APIKeys
	Accounts Accounts
	Tokens   TokenIssuer
	Now      Clock
}

func (h *ExchangeAPIKey) Handle(ctx context.Context, secret string) (IssuedToken, error) {
	if !credential.IsAPIKey(secret) {
		return IssuedToken{}, credential.ErrAPIKeyRefused
	}
	k, err := h.Keys.ByHash(ctx, credential.HashAPIKey(secret))
	if errors.Is(err, apikey.ErrNotFound) {
		return IssuedToken{}, credential.ErrAPIKeyRefused
	}
	if err != nil {
		return IssuedToken{}, fmt.Errorf("load api key: %w", err)
	}
	acc, err := h.Accounts.ByID(ctx, k.AccountID())
	if err != nil {
		return IssuedToken{}, fmt.Errorf("load account: %w", err)
	}
	if !acc.CanSignIn() {
		return IssuedToken{}, credential.ErrAPIKeyRefused
	}
	now := h.Now()
	if err := h.Keys.Touch(ctx, k.ID(), now); err != nil {
		slog.WarnContext(ctx, "api key use not noted", "key_id", k.ID(), "error", err)
	}
	return h.Tokens.IssueForKey(ctx, acc, k.ID(), now)
}

// Exchange is ExchangeAPIKey as an authjwt.KeyExchanger: identity's own routes accept keys
// without a round trip to itself.
func (h *ExchangeAPIKey) Exchange(ctx context.Context, secret string) (string, error) {
	tok, err := h.Handle(ctx, secret)
	return tok.Value, err
}

// revoked is the account.revoked event: of one API key when keyID is set, else of every token
// of the account issued before notBefore.
func revoked(accountID, keyID string, notBefore time.Time, reason string) contracts.Event {
	return contracts.Event{Type: identityevents.AccountRevoked, AccountID: accountID, Data: identityevents.AccountRevokedData{
		AccountID: accountID, KeyID: keyID, NotBefore: isotime.Of(notBefore.UTC()), Reason: reason,
	}}
}
