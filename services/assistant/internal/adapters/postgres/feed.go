package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// Feed is the PostgreSQL feed event store.
type Feed struct{ pool *pgxpool.Pool }

func NewFeed(pool *pgxpool.Pool) *Feed { return &Feed{pool: pool} }

// Add inserts the events in one transaction (the consumer's, when ctx carries one); a repeated
// source id is skipped.
func (r *Feed) Add(ctx context.Context, evs []app.SourcedEvent) (int, error) {
	inserted := 0
	err := pgkit.JoinTx(ctx, r.pool, func(tx pgx.Tx) error {
		var err error
		inserted, err = addFeed(ctx, tx, evs)
		return err
	})
	return inserted, err
}

// addFeed inserts feed events in tx, skipping repeated source ids, and reports how many it stored.
func addFeed(ctx context.Context, tx pgx.Tx, evs []app.SourcedEvent) (int, error) {
	inserted := 0
	for _, e := range evs {
		tag, err := tx.Exec(ctx, `INSERT INTO feed_events (source_id, account_id, module, event_type, summary, occurred_at)
			VALUES (NULLIF($1, ''), NULLIF($2, ''), $3, $4, $5, $6) ON CONFLICT (source_id) DO NOTHING`,
			e.SourceID, e.AccountID, e.Event.Module, e.Event.EventType, e.Event.Summary, e.Event.At)
		if err != nil {
			return 0, err
		}
		inserted += int(tag.RowsAffected())
	}
	return inserted, nil
}

// Recent returns the newest events since the given time, newest first, at most perAccount of any
// one account; events without an account (seeded by hand) are not bounded.
func (r *Feed) Recent(ctx context.Context, since time.Time, limit, perAccount int) ([]domain.FeedEvent, error) {
	rows, err := r.pool.Query(ctx, `SELECT module, event_type, summary, occurred_at FROM (
			SELECT id, account_id, module, event_type, summary, occurred_at,
				row_number() OVER (PARTITION BY account_id ORDER BY occurred_at DESC, id DESC) AS nth
			FROM feed_events WHERE occurred_at >= $1) e
		WHERE account_id IS NULL OR nth <= $3
		ORDER BY occurred_at DESC, id DESC LIMIT $2`, since, limit, perAccount)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.FeedEvent, error) {
		var e domain.FeedEvent
		err := row.Scan(&e.Module, &e.EventType, &e.Summary, &e.At)
		e.At = e.At.UTC()
		return e, err
	})
}
