// Package postgres stores the assistant's sessions, messages and feed events.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// Sessions is the PostgreSQL session store.
type Sessions struct{ pool *pgxpool.Pool }

func NewSessions(pool *pgxpool.Pool) *Sessions { return &Sessions{pool: pool} }

// Load reads a session of accountID and its newest messages, oldest first. The account is part
// of the lookup, so another account's session is simply not found.
func (r *Sessions) Load(ctx context.Context, accountID, sessionID string, maxMessages int) (*domain.Session, []domain.Message, error) {
	var (
		state     []byte
		createdAt time.Time
	)
	err := r.pool.QueryRow(ctx,
		`SELECT state, created_at FROM sessions WHERE id = $1 AND account_id = $2`, sessionID, accountID).
		Scan(&state, &createdAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, domain.ErrSessionNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	var st domain.State
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, nil, fmt.Errorf("decode session state: %w", err)
	}
	rows, err := r.pool.Query(ctx,
		`SELECT role, content, tokens, created_at FROM messages WHERE account_id = $1 AND session_id = $2 ORDER BY id DESC LIMIT $3`,
		accountID, sessionID, maxMessages)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Message, error) {
		var m domain.Message
		var role string
		err := row.Scan(&role, &m.Content, &m.Tokens, &m.At)
		m.Role = domain.Role(role)
		return m, err
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Reverse(msgs)
	return domain.RestoreSession(sessionID, accountID, st, createdAt), msgs, nil
}

// Save writes the session, its new messages and their feed events in one transaction.
func (r *Sessions) Save(ctx context.Context, s *domain.Session, created bool, msgs []domain.Message, feed ...app.SourcedEvent) error {
	state, err := json.Marshal(s.State())
	if err != nil {
		return err
	}
	return pgkit.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		now := time.Now().UTC()
		if created {
			// Two first turns under one client-chosen id may race: the later one continues the session.
			if _, err := tx.Exec(ctx,
				`INSERT INTO sessions (id, account_id, state, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (account_id, id) DO UPDATE SET state = EXCLUDED.state, updated_at = EXCLUDED.updated_at`,
				s.ID(), s.AccountID(), state, s.CreatedAt(), now); err != nil {
				return err
			}
		} else {
			tag, err := tx.Exec(ctx, `UPDATE sessions SET state = $3, updated_at = $4 WHERE id = $1 AND account_id = $2`,
				s.ID(), s.AccountID(), state, now)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return domain.ErrSessionNotFound
			}
		}
		roles, contents, tokens, ats := make([]string, len(msgs)), make([]string, len(msgs)), make([]int, len(msgs)), make([]time.Time, len(msgs))
		for i, m := range msgs {
			roles[i], contents[i], tokens[i], ats[i] = string(m.Role), m.Content, m.Tokens, m.At
		}
		// One statement for the exchange; ordinality keeps the question before the reply.
		if _, err := tx.Exec(ctx, `INSERT INTO messages (account_id, session_id, role, content, tokens, created_at)
			SELECT $1, $2, r.role, r.content, r.tokens, r.at
			FROM unnest($3::text[], $4::text[], $5::int[], $6::timestamptz[]) WITH ORDINALITY AS r(role, content, tokens, at, n)
			ORDER BY r.n`, s.AccountID(), s.ID(), roles, contents, tokens, ats); err != nil {
			return err
		}
		_, err := addFeed(ctx, tx, feed)
		return err
	})
}
