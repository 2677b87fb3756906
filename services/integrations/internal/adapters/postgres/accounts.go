package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/events"
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

// SecretOwner implements app.SecretStore. The inbound route looks a secret up on every request,
// so an owner found is remembered for secretsRemembered: a rotation through this process is seen
// at once, one through another replica within that time.
func (s *Store) SecretOwner(ctx context.Context, hash []byte) (string, []byte, error) {
	if accountID, stored, ok := s.secrets.recall(hash); ok {
		return accountID, stored, nil
	}
	var accountID string
	var stored []byte
	err := s.pool.QueryRow(ctx, `SELECT account_id, secret_hash FROM webhook_secrets WHERE secret_hash = $1`, hash).
		Scan(&accountID, &stored)
	if err != nil {
		return "", nil, wrap("look up secret", notFound(err))
	}
	s.secrets.remember(hash, accountID, stored)
	return accountID, stored, nil
}

// SetSecret implements app.SecretStore.
func (s *Store) SetSecret(ctx context.Context, accountID string, hash []byte) error {
	defer s.secrets.forget()
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

// Accept implements app.InboxStore in one round trip: the record, its lead and its event are one
// batch, which PostgreSQL runs as one implicit transaction. Copies are refused by unique indexes
// (the idempotency key's, or the body's among records without a key), not looked for: a copy
// arriving while the original commits waits for it, then fails its insert, and the whole batch
// rolls back. Only then is the stored copy read, in a second round trip.
func (s *Store) Accept(ctx context.Context, rec app.InboundRecord, since time.Time, ev contracts.Event) (app.Accepted, error) {
	// A copy found gone (its window ended in between) no longer refuses rec: try once more.
	for try := 0; ; try++ {
		acc, err := s.accept(ctx, rec, since, ev)
		if !errors.Is(err, errCopy) {
			return acc, wrap("accept inbound", err)
		}
		stored, err := s.storedCopy(ctx, rec)
		if errors.Is(err, app.ErrNotFound) && try == 0 {
			continue
		}
		return app.Accepted{Stored: stored}, wrap("read the stored copy", err)
	}
}

// errCopy is an insert into the inbox that a unique index refused: a copy is stored.
var errCopy = errors.New("a copy of the inbound event is stored")

func (s *Store) accept(ctx context.Context, rec app.InboundRecord, since time.Time, ev contracts.Event) (app.Accepted, error) {
	fields, err := json.Marshal(rec.Fields)
	if err != nil {
		return app.Accepted{}, err
	}
	extras, err := json.Marshal(rec.Extras)
	if err != nil {
		return app.Accepted{}, err
	}
	b := &pgx.Batch{}
	byBody := rec.IdempotencyKey == ""
	if byBody {
		// The copy received before since no longer refuses this body.
		b.Queue(`UPDATE inbox SET dedupes_body = false
			WHERE account_id = $1 AND body_hash = $2 AND dedupes_body AND received_at < $3`, rec.AccountID, rec.BodyHash, since)
	}
	b.Queue(`INSERT INTO inbox (id, account_id, event, fields, extras, idempotency_key, body_hash, received_at, dedupes_body)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), $7, $8, $9)`,
		rec.ID, rec.AccountID, rec.Event, fields, extras, rec.IdempotencyKey, rec.BodyHash, rec.ReceivedAt, byBody)
	if rec.LeadID != "" {
		b.Queue(`INSERT INTO known_leads (account_id, lead_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, rec.AccountID, rec.LeadID)
	}
	if err := (events.Outbox{}).Queue(ctx, b, ev); err != nil {
		return app.Accepted{}, err
	}
	results := s.pool.SendBatch(ctx, b)
	acc, err := readAccept(results, rec, byBody)
	if closeErr := results.Close(); err == nil {
		err = closeErr
	}
	if pgkit.UniqueViolation(err, "inbox_idempotency_key", "inbox_body_copies") {
		return app.Accepted{}, errCopy
	}
	return acc, err
}

// readAccept reads the results of accept's batch, in the order it queued them.
func readAccept(results pgx.BatchResults, rec app.InboundRecord, byBody bool) (app.Accepted, error) {
	if byBody {
		if _, err := results.Exec(); err != nil {
			return app.Accepted{}, err
		}
	}
	if _, err := results.Exec(); err != nil {
		return app.Accepted{}, err
	}
	acc := app.Accepted{Stored: rec, Created: true}
	if rec.LeadID != "" {
		tag, err := results.Exec()
		if err != nil {
			return app.Accepted{}, err
		}
		acc.Merged = tag.RowsAffected() == 0
	}
	if _, err := results.Exec(); err != nil {
		return app.Accepted{}, err
	}
	return acc, nil
}

// storedCopy reads the record that refused rec as a copy; ErrNotFound when there is none.
func (s *Store) storedCopy(ctx context.Context, rec app.InboundRecord) (app.InboundRecord, error) {
	where, arg := `idempotency_key = $2`, any(rec.IdempotencyKey)
	if rec.IdempotencyKey == "" {
		where, arg = `body_hash = $2 AND dedupes_body`, rec.BodyHash
	}
	stored := rec
	var event string
	err := s.pool.QueryRow(ctx, `SELECT id, event, fields, received_at FROM inbox WHERE account_id = $1 AND `+where,
		rec.AccountID, arg).Scan(&stored.ID, &event, &stored.Fields, &stored.ReceivedAt)
	if err != nil {
		return app.InboundRecord{}, notFound(err)
	}
	stored.Event = domain.InboundEvent(event)
	return stored, nil
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
