package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Inbox keeps inbound records and the leads known to be on each account's sheet (known_leads),
// which it alone writes, by one statement (knowLeadSQL, knowLead): from an accepted new_lead,
// with the record, and from leads' lead.written (KnowLead).
type Inbox struct {
	pool *pgxpool.Pool
}

func NewInbox(pool *pgxpool.Pool) *Inbox { return &Inbox{pool: pool} }

// Accept implements app.InboxStore in one round trip: the record, its lead and its event are one
// batch, which PostgreSQL runs as one implicit transaction. Copies are refused by unique indexes
// (the idempotency key's, or the body's among records without a key), not looked for: a copy
// arriving while the original commits waits for it, then fails its insert, and the whole batch
// rolls back. Only then is the stored copy read, in a second round trip.
func (s *Inbox) Accept(ctx context.Context, rec app.InboundRecord, since time.Time, ev contracts.Event) (app.Accepted, error) {
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

func (s *Inbox) accept(ctx context.Context, rec app.InboundRecord, since time.Time, ev contracts.Event) (app.Accepted, error) {
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
		args, err := knowLead(rec.AccountID, rec.LeadID, rec.LeadFields, rec.LeadDefaults, fromInbound)
		if err != nil {
			return app.Accepted{}, err
		}
		b.Queue(knowLeadSQL, args...)
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
		var inserted bool
		if err := results.QueryRow().Scan(&inserted, &acc.Known); err != nil {
			return app.Accepted{}, err
		}
		acc.Merged = !inserted
	}
	if _, err := results.Exec(); err != nil {
		return app.Accepted{}, err
	}
	return acc, nil
}

// storedCopy reads the record that refused rec as a copy; ErrNotFound when there is none.
func (s *Inbox) storedCopy(ctx context.Context, rec app.InboundRecord) (app.InboundRecord, error) {
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

// knowLeadSQL adds a lead or merges fields into what is known of it, and says whether it was
// added and what was known before. $3 are the fields (none empty), $4 what a new lead has when
// $3 does not say, $5 whether $3 is newer than what is known (an inbound repeat) or older (the
// lead.written of a lead whose later repeats integrations accepted first).
const knowLeadSQL = `WITH before AS (SELECT fields FROM known_leads WHERE account_id = $1 AND lead_id = $2),
	up AS (INSERT INTO known_leads AS k (account_id, lead_id, fields) VALUES ($1, $2, $4::jsonb || $3::jsonb)
		ON CONFLICT (account_id, lead_id) DO UPDATE
			SET fields = CASE WHEN $5::boolean THEN k.fields || $3::jsonb ELSE $3::jsonb || k.fields END
		RETURNING (xmax = 0) AS inserted)
	SELECT inserted, COALESCE((SELECT fields FROM before), '{}'::jsonb) FROM up`

// Where what is known of a lead comes from (knowLead).
const (
	fromInbound     = true  // an accepted new_lead: newer than what is known
	fromLeadWritten = false // leads' lead.written, which may arrive after repeats integrations accepted
)

// knowLead is the arguments of knowLeadSQL, the one write of known_leads: the lead's non-empty
// fields, what a lead new to the account has where they say nothing, and where they come from.
func knowLead(accountID, leadID string, fields, defaults map[string]string, inbound bool) ([]any, error) {
	known, err := jsonObject(fields)
	if err != nil {
		return nil, err
	}
	initial, err := jsonObject(defaults)
	if err != nil {
		return nil, err
	}
	return []any{accountID, leadID, known, initial, inbound}, nil
}

// jsonObject encodes m, nil as {}.
func jsonObject(m map[string]string) ([]byte, error) {
	if m == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(m)
}

// KnowLead implements app.KnownLeads.
func (s *Inbox) KnowLead(ctx context.Context, accountID, leadID string, fields map[string]string) (bool, error) {
	args, err := knowLead(accountID, leadID, fields, nil, fromLeadWritten)
	if err != nil {
		return false, err
	}
	var inserted bool
	var before map[string]string
	if err := pgkit.Q(ctx, s.pool).QueryRow(ctx, knowLeadSQL, args...).Scan(&inserted, &before); err != nil {
		return false, wrap("know lead", err)
	}
	return inserted, nil
}
