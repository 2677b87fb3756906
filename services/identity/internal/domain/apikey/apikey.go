// Package apikey holds the API key entity: a long-lived credential an account makes for its
// integrations, shown once and stored only as a hash.
package apikey

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bizassist/bizassist/libs/apperr"
)

// MaxPerAccount bounds the live keys of one account.
const MaxPerAccount = 20

// maxNameLength bounds a key's name, which is for people to tell keys apart.
const maxNameLength = 100

// Key is one API key. The secret itself is never kept: only its hash and its first characters.
type Key struct {
	id, accountID, name, prefix, hash string
	createdAt, lastUsedAt             time.Time
}

// New describes a key made now for accountID: its hash and the first characters shown in lists.
func New(id, accountID, name, prefix, hash string, now time.Time) (*Key, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return nil, apperr.MissingField("name")
	case utf8.RuneCountInString(name) > maxNameLength:
		return nil, apperr.InvalidField("name", "must be at most 100 characters")
	}
	return &Key{id: id, accountID: accountID, name: name, prefix: prefix, hash: hash, createdAt: now}, nil
}

// Snapshot is the stored form of a key; LastUsedAt is zero when the key was never used.
type Snapshot struct {
	ID, AccountID, Name, Prefix, Hash string
	CreatedAt, LastUsedAt             time.Time
}

// FromSnapshot rebuilds a stored key.
func FromSnapshot(s Snapshot) *Key {
	return &Key{id: s.ID, accountID: s.AccountID, name: s.Name, prefix: s.Prefix, hash: s.Hash,
		createdAt: s.CreatedAt, lastUsedAt: s.LastUsedAt}
}

// Snapshot returns the stored form.
func (k *Key) Snapshot() Snapshot {
	return Snapshot{ID: k.id, AccountID: k.accountID, Name: k.name, Prefix: k.prefix, Hash: k.hash,
		CreatedAt: k.createdAt, LastUsedAt: k.lastUsedAt}
}

func (k *Key) ID() string            { return k.id }
func (k *Key) AccountID() string     { return k.accountID }
func (k *Key) Name() string          { return k.name }
func (k *Key) Prefix() string        { return k.prefix }
func (k *Key) CreatedAt() time.Time  { return k.createdAt }
func (k *Key) LastUsedAt() time.Time { return k.lastUsedAt }

// ErrNotFound is returned for a key that does not exist, was deleted or is another account's.
var ErrNotFound = errors.New("api key not found")

// ErrTooMany refuses a key beyond MaxPerAccount.
var ErrTooMany = apperr.Conflict("too_many_keys", "an account may have at most 20 API keys; delete one first")
