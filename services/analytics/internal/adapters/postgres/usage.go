// Package postgres implements the app's storage interfaces on the analytics schema.
package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// Event sources in usage_events.source.
const (
	SourceAPI   = "api"   // POST /api/log-usage
	SourceEvent = "event" // usage.recorded from another service
)

// laneProjection is the rollup and dirty-mark lane of everything but the usage writer's workers,
// which use 0 to Workers-1 (see migration 002).
const laneProjection int16 = -1

const insertEventsSQL = `INSERT INTO usage_events (event_id, account_id, feature, action, uses, meta, source, occurred_at)
	SELECT id, account, feature, action, uses, meta::jsonb, $8, at
	FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::timestamptz[])
		AS r(id, account, feature, action, uses, meta, at)
	ON CONFLICT (event_id) DO NOTHING`

// eventArgs are insertEventsSQL's arguments: events as column arrays.
func eventArgs(events []usage.Event, source string) []any {
	n := len(events)
	ids, accounts, features, actions, metas := make([]string, n), make([]string, n), make([]string, n), make([]*string, n), make([]*string, n)
	counts, ats := make([]int32, n), make([]time.Time, n)
	for i, e := range events {
		ids[i], accounts[i], features[i], counts[i], ats[i] = e.ID(), e.AccountID(), e.Feature(), int32(e.Count()), e.At() //nolint:gosec // counts are small
		if a := e.Action(); a != "" {
			actions[i] = &a
		}
		if m := e.Meta(); m != nil {
			s := string(m)
			metas[i] = &s
		}
	}
	return []any{ids, accounts, features, actions, counts, metas, ats, source}
}

// batchSender is a transaction, or a pool that runs a batch as one implicit transaction.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// storeNew stores events whose ids are new (the API's own ULIDs) with their rollup and dirty
// marks in one round trip and one transaction: db's, or the batch's implicit one.
func storeNew(ctx context.Context, db batchSender, events []usage.Event, source string, lane int16) error {
	if len(events) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	b.Queue(insertEventsSQL, eventArgs(events, source)...)
	queueDerived(b, events, lane)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store usage events: %w", err)
	}
	return nil
}

// storeRecorded stores an event another service reported; a repeat of its id changes nothing.
func storeRecorded(ctx context.Context, tx pgx.Tx, e usage.Event) error {
	tag, err := tx.Exec(ctx, insertEventsSQL, eventArgs([]usage.Event{e}, SourceEvent)...)
	if err != nil {
		return fmt.Errorf("store usage event: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	b := &pgx.Batch{}
	queueDerived(b, []usage.Event{e}, laneProjection)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store usage event: %w", err)
	}
	return nil
}

// queueDerived adds what follows from new events: dirty marks and the daily rollup, both in lane.
func queueDerived(b *pgx.Batch, events []usage.Event, lane int16) {
	type dayKey struct {
		account, feature string
		day              time.Time
	}
	daily := map[dayKey]int64{}
	for _, e := range events {
		daily[dayKey{e.AccountID(), e.Feature(), dayOf(e.At())}] += int64(e.Count())
	}
	keys := make([]dayKey, 0, len(daily))
	for k := range daily {
		keys = append(keys, k)
	}
	// One lock order for every writer, so concurrent batches cannot deadlock on rollup rows.
	slices.SortFunc(keys, func(a, b dayKey) int {
		if c := strings.Compare(a.account, b.account); c != 0 {
			return c
		}
		if c := a.day.Compare(b.day); c != 0 {
			return c
		}
		return strings.Compare(a.feature, b.feature)
	})
	dAcc, dDay, dFeat, dUses := make([]string, len(keys)), make([]time.Time, len(keys)), make([]string, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		dAcc[i], dDay[i], dFeat[i], dUses[i] = k.account, k.day, k.feature, daily[k]
	}
	queueDirty(b, lane, dAcc...)
	// Last before commit: the rollup rows stay locked for as short a time as possible.
	b.Queue(`INSERT INTO usage_daily (account_id, day, feature, uses, lane)
		SELECT a, d, f, u, $5 FROM unnest($1::text[], $2::date[], $3::text[], $4::bigint[]) AS r(a, d, f, u)
		ON CONFLICT (account_id, day, feature, lane) DO UPDATE SET uses = usage_daily.uses + excluded.uses`,
		dAcc, dDay, dFeat, dUses, lane)
}

// dayOf is the UTC calendar day of t, as midnight UTC.
func dayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

const markDirtySQL = `INSERT INTO dirty_accounts (account_id, lane)
	SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING`

// markDirty queues accounts for the health worker.
func markDirty(ctx context.Context, tx pgx.Tx, lane int16, accountIDs ...string) error {
	if _, err := tx.Exec(ctx, markDirtySQL, sortedUnique(accountIDs), lane); err != nil {
		return fmt.Errorf("mark accounts dirty: %w", err)
	}
	return nil
}

func queueDirty(b *pgx.Batch, lane int16, accountIDs ...string) {
	b.Queue(markDirtySQL, sortedUnique(accountIDs), lane)
}

func sortedUnique(ids []string) []string { return slices.Compact(slices.Sorted(slices.Values(ids))) }

// Allowances reads monthly use and plan limits.
type Allowances struct {
	pool *pgxpool.Pool
}

func NewAllowances(pool *pgxpool.Pool) *Allowances { return &Allowances{pool: pool} }

func (a *Allowances) MonthlyUse(ctx context.Context, accountID string, from, to time.Time) (map[usage.Feature]int, error) {
	rows, err := a.pool.Query(ctx, `SELECT feature, sum(uses)::bigint FROM usage_daily
		WHERE account_id = $1 AND day >= $2 AND day < $3 AND feature = ANY($4) AND lane = $5
		GROUP BY feature`, accountID, dayOf(from), dayOf(to), metered(), laneReservation)
	if err != nil {
		return nil, fmt.Errorf("monthly use: %w", err)
	}
	out := map[usage.Feature]int{}
	var (
		feature string
		used    int64
	)
	_, err = pgx.ForEachRow(rows, []any{&feature, &used}, func() error {
		out[usage.Feature(feature)] = int(used)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("monthly use: %w", err)
	}
	return out, nil
}

func (a *Allowances) Limits(ctx context.Context, plan string) (map[usage.Feature]int, error) {
	return planLimits(ctx, a.pool, plan)
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func planLimits(ctx context.Context, q querier, plan string) (map[usage.Feature]int, error) {
	rows, err := q.Query(ctx, `SELECT feature, monthly_limit FROM plan_limits WHERE plan = $1`, plan)
	if err != nil {
		return nil, fmt.Errorf("plan limits: %w", err)
	}
	out := map[usage.Feature]int{}
	var (
		feature string
		limit   *int32
	)
	_, err = pgx.ForEachRow(rows, []any{&feature, &limit}, func() error {
		out[usage.Feature(feature)] = usage.Unlimited
		if limit != nil {
			out[usage.Feature(feature)] = int(*limit)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("plan limits: %w", err)
	}
	return out, nil
}

func metered() []string {
	out := make([]string, len(usage.Metered))
	for i, f := range usage.Metered {
		out[i] = string(f)
	}
	return out
}
