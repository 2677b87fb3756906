package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
	"github.com/bizassist/bizassist/services/analytics/migrations"
)

const (
	account = "acc_queue"
	pairKey = account + " chat"
)

var monthStart = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// holdPair takes the pair's advisory lock as another replica's reservation would, until release.
func holdPair(t *testing.T, pool *pgxpool.Pool) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, reservationLockSpace, pairKey)
	require.NoError(t, err)
	return func() { require.NoError(t, tx.Rollback(ctx)) }
}

// waitQueued waits until n reservations of the pair wait for its next transaction, while
// another transaction of the pair decides the first.
func waitQueued(t *testing.T, r *Reservations, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		q, ok := r.pairs[pairKey]
		return ok && q.callers == n+1 && q.group.Queued() == n
	}, 5*time.Second, time.Millisecond)
}

type outcome struct {
	used     int
	admitted bool
	err      error
}

// reserveLimited reserves one chat use against a monthly limit of limit and reports the outcome.
func reserveLimited(ctx context.Context, t *testing.T, r *Reservations, limit int, out chan<- outcome) {
	e, err := usage.NewReservation(account, "chat", 1, "test", monthStart.Add(time.Hour))
	require.NoError(t, err)
	admitted := false
	used, err := r.Reserve(ctx, e, monthStart, monthStart.AddDate(0, 1, 0), func(used int) bool {
		admitted = used < limit
		return admitted
	})
	out <- outcome{used, admitted, err}
}

func newReservations(t *testing.T) (*pgxpool.Pool, *Reservations) {
	t.Helper()
	pool := pgtest.New(t, "analytics", migrations.Source, events.Migrations)
	return pool, NewReservations(pool)
}

func countRows(t *testing.T, pool *pgxpool.Pool, sql string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), sql, account).Scan(&n))
	return n
}

// One account's reservations that queue while its transaction runs are decided by the next one,
// all together and in the order they came: one commit for the lot, and the limit still exact.
func TestQueuedReservationsAreDecidedTogetherInTheOrderTheyCame(t *testing.T) {
	pool, r := newReservations(t)
	release := holdPair(t, pool)
	first := make(chan outcome, 1)
	go reserveLimited(context.Background(), t, r, 10, first)
	waitQueued(t, r, 0) // taken by a transaction, which waits for the lock
	const queued = 20
	later := make([]chan outcome, queued)
	for i := range later {
		later[i] = make(chan outcome, 1)
		go reserveLimited(context.Background(), t, r, 10, later[i])
		waitQueued(t, r, i+1)
	}
	release()

	require.Equal(t, outcome{0, true, nil}, <-first)
	for i, c := range later {
		used := min(i+1, 10)
		require.Equal(t, outcome{used, used < 10, nil}, <-c, "reservation %d of the queue", i)
	}
	require.Equal(t, 10, countRows(t, pool, `SELECT count(*) FROM usage_events WHERE account_id = $1`))
	require.Equal(t, 2, countRows(t, pool, `SELECT count(DISTINCT xmin::text) FROM usage_events WHERE account_id = $1`),
		"the first reservation and the queue behind it, one transaction each")
	require.Equal(t, 10, countRows(t, pool, `SELECT sum(uses)::int FROM usage_daily WHERE account_id = $1`))
	r.mu.Lock()
	defer r.mu.Unlock()
	require.Empty(t, r.pairs, "a pair is forgotten once nothing of it is in flight")
}

// A caller that gives up while queued is answered when its batch runs, which leaves it out: it
// is not charged, and the reservations behind it are counted without it.
func TestAReservationGivenUpWhileQueuedIsNotCharged(t *testing.T) {
	pool, r := newReservations(t)
	release := holdPair(t, pool)
	first, gaveUp, last := make(chan outcome, 1), make(chan outcome, 1), make(chan outcome, 1)
	go reserveLimited(context.Background(), t, r, 10, first)
	waitQueued(t, r, 0)
	ctx, cancel := context.WithCancel(context.Background())
	go reserveLimited(ctx, t, r, 10, gaveUp)
	waitQueued(t, r, 1)
	go reserveLimited(context.Background(), t, r, 10, last)
	waitQueued(t, r, 2)
	cancel()
	release()
	require.Equal(t, outcome{0, true, nil}, <-first)
	require.ErrorIs(t, (<-gaveUp).err, context.Canceled)
	require.Equal(t, outcome{1, true, nil}, <-last)
	require.Equal(t, 2, countRows(t, pool, `SELECT count(*) FROM usage_events WHERE account_id = $1`))
}

// A caller that gives up while its transaction waits for the lock learns that nothing was
// reserved, and nothing is: the batch leaves it out.
func TestAReservationGivenUpInItsTransactionIsLeftOut(t *testing.T) {
	pool, r := newReservations(t)
	release := holdPair(t, pool)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan outcome, 1)
	go reserveLimited(ctx, t, r, 10, gaveUp)
	waitQueued(t, r, 0)
	cancel()
	select {
	case o := <-gaveUp:
		t.Fatalf("answered %+v before its transaction ended", o)
	case <-time.After(50 * time.Millisecond): // it waits for the transaction that holds it
	}
	release()
	require.ErrorIs(t, (<-gaveUp).err, context.Canceled)
	require.Equal(t, 0, countRows(t, pool, `SELECT count(*) FROM usage_events WHERE account_id = $1`))
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM usage_daily WHERE account_id = $1 AND uses > 0`, account).Scan(&n))
	require.Zero(t, n)
}
