// Package apptest holds the console's in-memory stand-in for the session store, for the tests of
// app and ports (the PostgreSQL store has its own tests in adapters/postgres).
package apptest

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/domain/session"
)

// Sessions keeps sessions in memory by their secret's ID, expiring them by now as the store does.
type Sessions struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]session.Session
}

// NewSessions returns an empty store.
func NewSessions(now func() time.Time) *Sessions {
	return &Sessions{now: now, m: map[string]session.Session{}}
}

// Create stores a new session.
func (s *Sessions) Create(_ context.Context, secret session.Secret, sess session.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[string(secret.ID())] = clone(sess)
	return nil
}

// Get returns the live session of secret, or app.ErrNoSession.
func (s *Sessions) Get(_ context.Context, secret session.Secret) (session.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.m[string(secret.ID())]
	if !ok || !sess.ExpiresAt.After(s.now()) {
		return session.Session{}, app.ErrNoSession
	}
	return clone(sess), nil
}

// SaveChat records the session's chat.
func (s *Sessions) SaveChat(_ context.Context, secret session.Secret, sess session.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.m[string(secret.ID())]
	if !ok {
		return app.ErrNoSession
	}
	cur.ChatSession, cur.Chat = sess.ChatSession, slices.Clone(sess.Chat)
	s.m[string(secret.ID())] = cur
	return nil
}

// Delete ends a session.
func (s *Sessions) Delete(_ context.Context, secret session.Secret) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, string(secret.ID()))
	return nil
}

// Len is how many sessions are stored.
func (s *Sessions) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

func clone(sess session.Session) session.Session {
	sess.Chat = slices.Clone(sess.Chat)
	return sess
}
