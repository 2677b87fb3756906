package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/groupcommit"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// SourceReservation marks usage events stored by POST /internal/usage/reserve; only those can
// be released.
const SourceReservation = "reservation"

// laneReservation is the rollup and dirty-mark lane of reservations. They are serialised per
// account and feature by their lock already, so one lane for all of them contends with nothing.
// It is also the one source of a metered feature's use: the feature reserves where it runs, so
// what log-usage or usage.recorded report of chat, lead_scoring or lead_finder is kept but not
// counted again (the spec's own log-usage example is a chat message).
const laneReservation int16 = -2

// reservationLockSpace is the first key of reservations' advisory locks, so they never share a
// key with the one-key locks (health recompute, migrations).
const reservationLockSpace = 0x72657376 // "resv"

// Reservations stores reservations in usage_events, counted by the same rollup as every other
// use, so pql-check sees a reservation as soon as it commits.
type Reservations struct {
	pool *pgxpool.Pool

	mu    sync.Mutex
	pairs map[string]*pairQueue // the account and feature pairs with a reservation in flight here
}

func NewReservations(pool *pgxpool.Pool) *Reservations {
	return &Reservations{pool: pool, pairs: map[string]*pairQueue{}}
}

// A pairQueue groups the reservations of one account and feature; it lives while one is in flight.
type pairQueue struct {
	group   *groupcommit.Group[*pendingReservation]
	callers int
}

// A pendingReservation is one Reserve call and, once its batch has run, its outcome.
type pendingReservation struct {
	ctx      context.Context
	event    usage.Event
	from, to time.Time
	admit    func(used int) bool
	used     int
	err      error // the caller gave up before its batch decided it
}

const (
	// maxReservationBatch caps the reservations one transaction decides.
	maxReservationBatch = 256
	// reservationTimeout bounds one batch's transaction, which serves many callers.
	reservationTimeout = 10 * time.Second
)

// Reserve decides e with group commit: the reservations of one account and feature that arrive
// while a transaction of that pair runs in this replica queue, and the next transaction decides
// all of them in the order they came, each on the month's use plus those admitted ahead of it,
// with one durable commit. Queueing here rather than on the database lock keeps one account's
// burst from taking the pool.
func (r *Reservations) Reserve(ctx context.Context, e usage.Event, from, to time.Time, admit func(used int) bool) (int, error) {
	key := e.AccountID() + " " + e.Feature() // feature names have no space
	q := r.join(key)
	defer r.leave(key)
	p := &pendingReservation{ctx: ctx, event: e, from: from, to: to, admit: admit}
	err := q.group.Do(ctx, p)
	if err == nil {
		err = p.err
	}
	if err != nil {
		return 0, fmt.Errorf("reserve usage: %w", err)
	}
	return p.used, nil
}

func (r *Reservations) join(key string) *pairQueue {
	r.mu.Lock()
	defer r.mu.Unlock()
	q, ok := r.pairs[key]
	if !ok {
		q = &pairQueue{group: groupcommit.New(maxReservationBatch, reservationTimeout,
			func(ctx context.Context, batch []*pendingReservation) error { return r.decide(ctx, key, batch) })}
		r.pairs[key] = q
	}
	q.callers++
	return q
}

func (r *Reservations) leave(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.pairs[key]
	q.callers--
	if q.callers == 0 {
		delete(r.pairs, key)
	}
}

// decide admits or refuses batch, reservations of the pair key, in one transaction. It first
// takes a transaction-scoped advisory lock on the pair, which every replica's reservations of it
// take: the previous holder committed before releasing it, so the month's sum includes it, and
// no reservation is admitted on a count that another is about to change.
func (r *Reservations) decide(ctx context.Context, key string, batch []*pendingReservation) error {
	return pgkit.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, reservationLockSpace, key); err != nil {
			return fmt.Errorf("lock allowance: %w", err)
		}
		used := map[time.Time]int{} // per month: a batch may straddle the first of one
		admitted := make([]usage.Event, 0, len(batch))
		for _, p := range batch {
			// A caller that gave up while its batch waited is neither charged nor counted.
			if p.err = p.ctx.Err(); p.err != nil {
				continue
			}
			month, ok := used[p.from]
			if !ok {
				var sum int64
				if err := tx.QueryRow(ctx, `SELECT coalesce(sum(uses), 0)::bigint FROM usage_daily
					WHERE account_id = $1 AND feature = $2 AND day >= $3 AND day < $4 AND lane = $5`,
					p.event.AccountID(), p.event.Feature(), dayOf(p.from), dayOf(p.to), laneReservation).Scan(&sum); err != nil {
					return fmt.Errorf("monthly use: %w", err)
				}
				month = int(sum)
			}
			p.used = month
			if p.admit(month) {
				admitted = append(admitted, p.event)
				month += p.event.Count()
			}
			used[p.from] = month
		}
		return storeNew(ctx, tx, admitted, SourceReservation, laneReservation)
	})
}

// Release deletes a reservation the account made in [from, to) and takes its uses off the
// rollup in the same transaction; a second release finds nothing.
func (r *Reservations) Release(ctx context.Context, accountID, id string, from, to time.Time) (bool, error) {
	released := false
	err := pgkit.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		var (
			feature string
			uses    int32
			at      time.Time
		)
		err := tx.QueryRow(ctx, `DELETE FROM usage_events
			WHERE event_id = $1 AND account_id = $2 AND source = $3 AND occurred_at >= $4 AND occurred_at < $5
			RETURNING feature, uses, occurred_at`, id, accountID, SourceReservation, from, to).Scan(&feature, &uses, &at)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE usage_daily SET uses = uses - $5
			WHERE account_id = $1 AND day = $2 AND feature = $3 AND lane = $4`,
			accountID, dayOf(at), feature, laneReservation, uses); err != nil {
			return err
		}
		released = true
		return markDirty(ctx, tx, laneReservation, accountID)
	})
	if err != nil {
		return false, fmt.Errorf("release usage: %w", err)
	}
	return released, nil
}
