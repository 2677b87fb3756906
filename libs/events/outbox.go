package events

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/pgkit"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations creates the outbox and processed_events tables; every service that produces or
// consumes events migrates it into its own schema next to its own migrations.
var Migrations = pgkit.EmbeddedSource("events", migrationFiles, "migrations")

// notifyChannel is where Enqueue tells the relays of schema's outbox that rows are waiting: a
// channel per schema, so a service's relay is not woken by every other service's events (they
// share one database).
func notifyChannel(schema string) string { return "events_outbox_" + schema }

// Enqueue writes envs to the outbox inside tx, so they are published if and only if the caller's
// domain write commits. It also notifies the relay, which PostgreSQL delivers only on commit.
func Enqueue(ctx context.Context, tx pgx.Tx, envs ...Envelope) error {
	if len(envs) == 0 {
		return nil
	}
	sql, args, err := enqueueStatement(envs)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("enqueue: insert outbox: %w", err)
	}
	return nil
}

// enqueueStatement is the one statement, one round trip, that inserts envs and notifies the
// relay.
func enqueueStatement(envs []Envelope) (string, []any, error) {
	eventIDs := make([]string, len(envs))
	types := make([]string, len(envs))
	accounts := make([]string, len(envs))
	payloads := make([]string, len(envs))
	for i, e := range envs {
		if e.ID == "" || !eventType.MatchString(e.Type) {
			return "", nil, errors.New("enqueue: envelope without id or valid type; build it with events.New")
		}
		raw, err := json.Marshal(e)
		if err != nil {
			return "", nil, fmt.Errorf("enqueue %s: %w", e.ID, err)
		}
		eventIDs[i], types[i], accounts[i], payloads[i] = e.ID, e.Type, e.AccountID, string(raw)
	}
	return `WITH inserted AS (
			INSERT INTO outbox (id, type, account_id, payload)
			SELECT id, type, account_id, payload::jsonb
			FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS r(id, type, account_id, payload)
			RETURNING 1)
		SELECT pg_notify($5 || current_schema(), '') WHERE EXISTS (SELECT FROM inserted)`,
		[]any{eventIDs, types, accounts, payloads, notifyChannel("")}, nil
}

// ErrNoTransaction refuses a Publish whose ctx carries no transaction: an event published apart
// from the write it announces could commit without it, or be lost with it.
var ErrNoTransaction = errors.New("events: publish needs the transaction of the write it announces in its context (pgkit.WithTx)")

// Outbox is the adapter behind a producing service's outbox port (declared by its app layer):
// Publish enqueues events in the transaction ctx carries, which is the consumer's when a handler
// publishes, or the one a pgkit.Transactor or a repository opened around the use case's write.
type Outbox struct{}

// Publish builds an envelope for each event (trace context from ctx) and enqueues them all in
// the transaction of ctx; without one it fails with ErrNoTransaction.
func (Outbox) Publish(ctx context.Context, evs ...contracts.Event) error {
	if len(evs) == 0 {
		return nil
	}
	tx, ok := pgkit.TxFrom(ctx)
	if !ok {
		return ErrNoTransaction
	}
	envs, err := envelopes(ctx, evs)
	if err != nil {
		return err
	}
	return Enqueue(ctx, tx, envs...)
}

// Queue is Publish for a write sent as a batch: it queues the events' insert in b, so they
// commit with b's other statements (b's transaction, or the implicit one PostgreSQL runs a
// batch sent outside a transaction in). Its result is one of b's, to be read in order.
func (Outbox) Queue(ctx context.Context, b *pgx.Batch, evs ...contracts.Event) error {
	if len(evs) == 0 {
		return errors.New("events: queue needs at least one event")
	}
	envs, err := envelopes(ctx, evs)
	if err != nil {
		return err
	}
	sql, args, err := enqueueStatement(envs)
	if err != nil {
		return err
	}
	b.Queue(sql, args...)
	return nil
}

// envelopes builds an envelope for each event, with the trace context of ctx.
func envelopes(ctx context.Context, evs []contracts.Event) ([]Envelope, error) {
	envs := make([]Envelope, len(evs))
	for i, ev := range evs {
		env, err := New(ctx, ev.Type, ev.AccountID, ev.Data)
		if err != nil {
			return nil, err
		}
		envs[i] = env
	}
	return envs, nil
}
