package postgres

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// SaveAccount implements app.AccountProjection, in the consumer's transaction.
func (s *Store) SaveAccount(ctx context.Context, a app.NewAccount, secretHash []byte) error {
	return pgkit.JoinTx(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO accounts (id, email, role, owner_id) VALUES ($1, $2, $3, NULLIF($4, ''))
			ON CONFLICT (id) DO NOTHING`, a.AccountID, a.Email, a.Role, a.OwnerID)
		if err != nil || tag.RowsAffected() == 0 || secretHash == nil {
			return wrap("save account", err)
		}
		_, err = tx.Exec(ctx, `INSERT INTO webhook_secrets (account_id, secret_hash) VALUES ($1, $2)`, a.AccountID, secretHash)
		return wrap("save first webhook secret", err)
	})
}

// SecretOwner implements app.SecretStore.
func (s *Store) SecretOwner(ctx context.Context, hash []byte) (string, []byte, error) {
	var accountID string
	var stored []byte
	err := s.pool.QueryRow(ctx, `SELECT account_id, secret_hash FROM webhook_secrets WHERE secret_hash = $1`, hash).
		Scan(&accountID, &stored)
	return accountID, stored, wrap("look up secret", notFound(err))
}

// SetSecret implements app.SecretStore.
func (s *Store) SetSecret(ctx context.Context, accountID string, hash []byte) error {
	tag, err := s.pool.Exec(ctx, `INSERT INTO webhook_secrets (account_id, secret_hash)
		SELECT id, $2 FROM accounts WHERE id = $1 AND role = 'owner'
		ON CONFLICT (account_id) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, rotated_at = now()`, accountID, hash)
	if err == nil && tag.RowsAffected() == 0 {
		return app.ErrNotFound
	}
	return wrap("set secret", err)
}

// OwnerByEmail finds an owner account by email, for the operator's CLI.
func (s *Store) OwnerByEmail(ctx context.Context, email string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT id FROM accounts WHERE lower(email) = lower($1) AND role = 'owner'`, email).Scan(&id)
	return id, wrap("find owner", notFound(err))
}

// Accept implements app.InboxStore, in the transaction ctx must carry (not a savepoint of it:
// a failure fails the whole unit of work anyway). A transaction-scoped
// advisory lock on (account, body hash) serialises concurrent copies of one delivery, so exactly
// one of them inserts; the lock lasts until the caller's unit of work commits, so its events are
// in before the next copy looks.
func (s *Store) Accept(ctx context.Context, rec app.InboundRecord, since time.Time) (app.InboundRecord, bool, error) {
	tx, ok := pgkit.TxFrom(ctx)
	if !ok {
		return app.InboundRecord{}, false, errors.New("accept inbound: ctx carries no transaction for the lock to last until")
	}
	stored, created, err := accept(ctx, tx, rec, since)
	if err != nil {
		return app.InboundRecord{}, false, wrap("accept inbound", err)
	}
	return stored, created, nil
}

// accept stores rec unless a copy of it is already in the inbox, and returns the stored record.
func accept(ctx context.Context, tx pgx.Tx, rec app.InboundRecord, since time.Time) (app.InboundRecord, bool, error) {
	fields, err := json.Marshal(rec.Fields)
	if err != nil {
		return app.InboundRecord{}, false, err
	}
	extras, err := json.Marshal(rec.Extras)
	if err != nil {
		return app.InboundRecord{}, false, err
	}
	lockKey := rec.AccountID + ":" + rec.IdempotencyKey
	if rec.IdempotencyKey == "" {
		lockKey = rec.AccountID + ":" + hex.EncodeToString(rec.BodyHash)
	}
	// One round trip: the lock, then the look-up, whose snapshot is taken after the lock is held.
	batch := &pgx.Batch{}
	batch.Queue(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, lockKey)
	if rec.IdempotencyKey != "" {
		batch.Queue(`SELECT id, event, fields, received_at FROM inbox WHERE account_id = $1 AND idempotency_key = $2`,
			rec.AccountID, rec.IdempotencyKey)
	} else {
		batch.Queue(`SELECT id, event, fields, received_at FROM inbox
			WHERE account_id = $1 AND body_hash = $2 AND received_at >= $3 ORDER BY received_at DESC LIMIT 1`,
			rec.AccountID, rec.BodyHash, since)
	}
	results := tx.SendBatch(ctx, batch)
	if _, err := results.Exec(); err != nil {
		_ = results.Close()
		return app.InboundRecord{}, false, err
	}
	row := results.QueryRow()
	stored := rec
	var event string
	err = row.Scan(&stored.ID, &event, &stored.Fields, &stored.ReceivedAt)
	if closeErr := results.Close(); closeErr != nil && (err == nil || errors.Is(err, pgx.ErrNoRows)) {
		err = closeErr
	}
	if err == nil {
		stored.Event = domain.InboundEvent(event)
		return stored, false, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return app.InboundRecord{}, false, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO inbox (id, account_id, event, fields, extras, idempotency_key, body_hash, received_at)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), $7, $8)`,
		rec.ID, rec.AccountID, rec.Event, fields, extras, rec.IdempotencyKey, rec.BodyHash, rec.ReceivedAt); err != nil {
		return app.InboundRecord{}, false, err
	}
	return rec, true, nil
}

// KnowLead implements app.KnownLeads.
func (s *Store) KnowLead(ctx context.Context, accountID, leadID string) (bool, error) {
	tag, err := pgkit.Q(ctx, s.pool).Exec(ctx, `INSERT INTO known_leads (account_id, lead_id) VALUES ($1, $2)
		ON CONFLICT DO NOTHING`, accountID, leadID)
	if err != nil {
		return false, wrap("know lead", err)
	}
	return tag.RowsAffected() == 1, nil
}
