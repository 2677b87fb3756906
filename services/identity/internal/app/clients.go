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
	Accounts Accounts
	Outbox   Outbox
	Now      Clock
}

// InviteClientCommand is what the owner (or an inbound new_client) says about the client.
type InviteClientCommand struct {
	OwnerID string
	account.ClientDetails
}

func (h *InviteClient) Handle(ctx context.Context, cmd InviteClientCommand) (Invitation, error) {
	token, hash, err := newInvitation()
	if err != nil {
		return Invitation{}, err
	}
	now := h.Now()
	var inv Invitation
	err = addClient(ctx, h.Accounts, h.Outbox, cmd.OwnerID, cmd.ClientDetails, hash, now,
		func(ctx context.Context, existing *account.Account) (*account.Account, error) {
			return h.Accounts.Update(ctx, existing.ID(), func(_ context.Context, a *account.Account) error {
				return a.Reinvite(hash, now)
			})
		},
		func(client *account.Account) {
			inv = Invitation{Client: client, Token: token, ExpiresAt: client.InviteExpiresAt()}
		})
	if errors.Is(err, account.ErrNotFound) {
		return Invitation{}, fmt.Errorf("load owner: %w", err)
	}
	return inv, err
}

// addClient makes owner's client from d with the owner's row locked, so that the owner's plan
// and client allowance hold however many invitations arrive at once: the owner must be allowed
// to invite, the client's plan is at most the owner's, and a new client must fit within
// account.MaxClients. A client of the owner with that email goes to existing instead; done gets
// the client made or returned by existing.
func addClient(ctx context.Context, accounts Accounts, outbox Outbox, ownerID string, d account.ClientDetails, inviteHash string, now time.Time,
	existing func(context.Context, *account.Account) (*account.Account, error), done func(*account.Account)) error {
	_, err := accounts.Update(ctx, ownerID, func(ctx context.Context, owner *account.Account) error {
		if !owner.CanInviteClients() {
			return errCannotInvite
		}
		client, err := account.NewClient(ids.New("acc"), owner, d, inviteHash, now)
		if err != nil {
			return err
		}
		found, err := accounts.ClientByEmail(ctx, owner.ID(), client.Email())
		if err == nil {
			if found, err = existing(ctx, found); err == nil {
				done(found)
			}
			return err
		}
		if !errors.Is(err, account.ErrNotFound) {
			return err
		}
		n, err := accounts.CountClients(ctx, owner.ID())
		if err != nil {
			return err
		}
		if n >= account.MaxClients(owner.Plan()) {
			return account.ErrTooManyClients
		}
		if err := accounts.Create(ctx, client); err != nil {
			return err
		}
		done(client)
		return outbox.Publish(ctx, accountCreated(client))
	})
	return err
}

// AcceptInvitation activates an invited client with the password it chose and signs it in.
type AcceptInvitation struct {
	Accounts Accounts
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
		// Answered like a dead invitation: the owner holds the token, so a distinct answer would
		// tell it whether any email it invites is registered.
		return LoginResult{}, account.ErrInvitationInvalid
	}
	if err != nil {
		return LoginResult{}, err
	}
	return issue(ctx, h.Tokens, acc, now)
}

// ListClients lists an owner's clients with their health as analytics last reported it.
type ListClients struct {
	Accounts Accounts
}

func (h *ListClients) Handle(ctx context.Context, ownerID string) ([]*account.Account, error) {
	return h.Accounts.List(ctx, account.ListFilter{OwnerID: ownerID})
}
