// Package postgres stores the console's sessions in its own schema.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/domain/session"
)

// Sessions is app.Sessions in PostgreSQL.
type Sessions struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// NewSessions returns the store; now decides what has expired.
func NewSessions(pool *pgxpool.Pool, now func() time.Time) *Sessions {
	return &Sessions{pool: pool, now: now}
}

// Create stores a new session.
func (s *Sessions) Create(ctx context.Context, secret session.Secret, sess session.Session) error {
	chat, err := json.Marshal(sess.Chat)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO sessions (id, sealed_token, email, plan, chat_session, chat, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		secret.ID(), secret.Seal(sess.Token), sess.Email, sess.Plan, sess.ChatSession, chat, s.now(), sess.ExpiresAt)
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// Get returns the live session behind secret.
func (s *Sessions) Get(ctx context.Context, secret session.Secret) (session.Session, error) {
	var (
		sess   session.Session
		sealed []byte
		chat   []byte
	)
	err := s.pool.QueryRow(ctx, `SELECT sealed_token, email, plan, chat_session, chat, expires_at
		FROM sessions WHERE id = $1 AND expires_at > $2`, secret.ID(), s.now()).
		Scan(&sealed, &sess.Email, &sess.Plan, &sess.ChatSession, &chat, &sess.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return sess, app.ErrNoSession
	}
	if err != nil {
		return sess, fmt.Errorf("get session: %w", err)
	}
	if sess.Token, err = secret.Open(sealed); err != nil {
		return sess, err
	}
	if err := json.Unmarshal(chat, &sess.Chat); err != nil {
		return sess, fmt.Errorf("session chat: %w", err)
	}
	return sess, nil
}

// SaveChat records the session's conversation.
func (s *Sessions) SaveChat(ctx context.Context, secret session.Secret, sess session.Session) error {
	chat, err := json.Marshal(sess.Chat)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `UPDATE sessions SET chat_session = $2, chat = $3 WHERE id = $1`, secret.ID(), sess.ChatSession, chat)
	if err != nil {
		return fmt.Errorf("save chat: %w", err)
	}
	return nil
}

// Delete ends a session; ending one that does not exist is not an error.
func (s *Sessions) Delete(ctx context.Context, secret session.Secret) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE id = $1`, secret.ID()); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// Prune deletes expired sessions.
func (s *Sessions) Prune(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, s.now())
	if err != nil {
		return 0, fmt.Errorf("prune sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}
