package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// invitationPrefix marks invitation tokens, as bza_ marks API keys.
const invitationPrefix = "bzi_"

// newInvitation returns a fresh invitation token and the hash it is stored and found by.
func newInvitation() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	token = invitationPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, invitationHash(token), nil
}

func invitationHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

var errCannotInvite = apperr.Forbidden("plan_upgrade_required", "inviting clients needs the growth or full_stack plan")

// Invitation is a client invited by its owner: the token is shown once, to the owner.
type Invitation struct {
	Client    *account.Account
	Token     string
	ExpiresAt time.Time
}

// InviteClient creates a client of the caller (an owner on a paid plan), invited to sign in. A
// client of that owner with that email still invited gets a new invitation instead.
type InviteClient struct {
	Tx       Transactor
	Accounts account.Repository
	Outbox   Outbox
	Now      Clock
}

// InviteClientCommand is what the owner (or an inbound new_client) says about the client.
type InviteClientCommand struct {
	OwnerID string
	account.ClientDetails
}

func (h *InviteClient) Handle(ctx context.Context, cmd InviteClientCommand) (Invitation, error) {
	owner, err := h.Accounts.ByID(ctx, cmd.OwnerID)
	if err != nil {
		return Invitation{}, fmt.Errorf("load owner: %w", err)
	}
	if !owner.CanInviteClients() {
		return Invitation{}, errCannotInvite
	}
	return invite(ctx, h.Tx, h.Accounts, h.Outbox, owner, cmd.ClientDetails, h.Now())
}

// invite creates the invited client, or renews the invitation of one still invited.
func invite(ctx context.Context, tx Transactor, accounts account.Repository, outbox Outbox, owner *account.Account, d account.ClientDetails, now time.Time) (Invitation, error) {
	token, hash, err := newInvitation()
	if err != nil {
		return Invitation{}, err
	}
	client, err := account.NewClient(ids.New("acc"), owner, d, hash, now)
	if err != nil {
		return Invitation{}, err
	}
	existing, err := accounts.ClientByEmail(ctx, owner.ID(), client.Email())
	if errors.Is(err, account.ErrNotFound) {
		if err := create(ctx, tx, accounts, outbox, client); err != nil {
			return Invitation{}, err
		}
		return Invitation{Client: client, Token: token, ExpiresAt: client.InviteExpiresAt()}, nil
	}
	if err != nil {
		return Invitation{}, err
	}
	renewed, err := accounts.Update(ctx, existing.ID(), func(_ context.Context, a *account.Account) error {
		return a.Reinvite(hash, now)
	})
	if err != nil {
		return Invitation{}, err
	}
	return Invitation{Client: renewed, Token: token, ExpiresAt: renewed.InviteExpiresAt()}, nil
}

// AcceptInvitation activates an invited client with the password it chose and signs it in.
type AcceptInvitation struct {
	Accounts account.Repository
	Outbox   Outbox
	Hasher   PasswordHasher
	Tokens   TokenIssuer
	Now      Clock
}

func (h *AcceptInvitation) Handle(ctx context.Context, token, password string) (LoginResult, error) {
	if token == "" {
		return LoginResult{}, apperr.MissingField("token")
	}
	if err := account.ValidateNewPassword("password", password); err != nil {
		return LoginResult{}, err
	}
	id, err := h.Accounts.IDByInvitation(ctx, invitationHash(token))
	if errors.Is(err, account.ErrNotFound) {
		return LoginResult{}, account.ErrInvitationInvalid
	}
	if err != nil {
		return LoginResult{}, err
	}
	hash, err := h.Hasher.Hash(ctx, password)
	if err != nil {
		return LoginResult{}, fmt.Errorf("hash password: %w", err)
	}
	now := h.Now()
	acc, err := h.Accounts.Update(ctx, id, func(ctx context.Context, a *account.Account) error {
		if err := a.Accept(hash, now); err != nil {
			return err
		}
		a.RecordLogin(now)
		return h.Outbox.Publish(ctx, loggedIn(a, now))
	})
	if errors.Is(err, account.ErrEmailTaken) {
		return LoginResult{}, errEmailRegistered
	}
	if err != nil {
		return LoginResult{}, err
	}
	return issue(ctx, h.Tokens, acc, now)
}

// ListClients lists an owner's clients with their health as analytics last reported it.
type ListClients struct {
	Accounts account.Repository
}

func (h *ListClients) Handle(ctx context.Context, ownerID string) ([]*account.Account, error) {
	return h.Accounts.List(ctx, account.ListFilter{OwnerID: ownerID})
}
