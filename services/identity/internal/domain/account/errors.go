package account

import (
	"errors"
)

// ErrNotFound is returned when no account matches.
var ErrNotFound = errors.New("account not found")

// ErrEmailTaken is returned when an owner account with that email exists already.
var ErrEmailTaken = errors.New("an account with this email exists")

// ListFilter narrows List.
type ListFilter struct {
	OwnerID string // clients of this owner; empty lists owners
	Limit   int
}
