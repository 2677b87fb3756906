package account

import (
	"context"
	"errors"
)

// ErrNotFound is returned when no account matches.
var ErrNotFound = errors.New("account not found")

// ErrEmailTaken is returned when an owner account with that email exists already.
var ErrEmailTaken = errors.New("an account with this email exists")

// Repository stores accounts. Update runs fn on the current state inside one transaction with
// the row locked, and stores the result only when fn succeeds; the ctx fn gets carries that
// transaction, so the events fn publishes through the app's outbox commit with the change.
type Repository interface {
	Create(ctx context.Context, a *Account) error
	ByID(ctx context.Context, id string) (*Account, error)
	OwnerByEmail(ctx context.Context, email string) (*Account, error)
	// SignInByEmail is the account that signs in with email (an owner or an active client).
	SignInByEmail(ctx context.Context, email string) (*Account, error)
	// ClientByEmail is owner's client with email.
	ClientByEmail(ctx context.Context, ownerID, email string) (*Account, error)
	// CountClients is how many clients of ownerID are invited or active.
	CountClients(ctx context.Context, ownerID string) (int, error)
	// IDByInvitation is the client whose pending invitation token hashes to inviteHash.
	IDByInvitation(ctx context.Context, inviteHash string) (string, error)
	Update(ctx context.Context, id string, fn func(ctx context.Context, a *Account) error) (*Account, error)
	List(ctx context.Context, f ListFilter) ([]*Account, error)
}

// ListFilter narrows List.
type ListFilter struct {
	OwnerID string // clients of this owner; empty lists owners
	Limit   int
}
