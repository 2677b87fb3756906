package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/migrations"
)

// newStore is a store on a fresh schema with one owner account, acc_1, and a helper that runs a
// statement and returns the integer it selects (or 0 for a statement without a result).
func newStore(t *testing.T) (*postgres.Store, func(sql string, args ...any) int) {
	t.Helper()
	store, sqlInt, _ := newStoreAndUnitOfWork(t)
	return store, sqlInt
}

// newStoreAndUnitOfWork is newStore with the unit of work the use cases open around the store.
func newStoreAndUnitOfWork(t *testing.T) (*postgres.Store, func(sql string, args ...any) int, pgkit.Transactor) {
	t.Helper()
	pool := pgtest.New(t, "integrations", pgkit.Source{Name: "integrations", FS: migrations.FS}, events.Migrations)
	store := postgres.New(pool, noJobs{}, sealboxtest.New(t))
	require.NoError(t, store.SaveAccount(context.Background(), app.NewAccount{AccountID: "acc_1", Email: "a@example.com", Role: "owner"}, domain.HashSecret("s")))

	sqlInt := func(sql string, args ...any) int {
		rows, err := pool.Query(context.Background(), sql, args...)
		require.NoError(t, err)
		defer rows.Close()
		n := 0
		if rows.Next() && len(rows.FieldDescriptions()) > 0 {
			require.NoError(t, rows.Scan(&n))
		}
		require.NoError(t, rows.Err())
		return n
	}
	return store, sqlInt, pgkit.Transactor{DB: pool}
}

// noJobs stands in for River: these tests look at rows, not at job execution.
type noJobs struct{}

func (noJobs) EnqueueTx(context.Context, pgx.Tx, ...app.DeliveryJob) error { return nil }

// jobLog stands in for River and keeps the jobs queued.
type jobLog struct {
	mu   sync.Mutex
	jobs []app.DeliveryJob
}

func (l *jobLog) EnqueueTx(_ context.Context, _ pgx.Tx, jobs ...app.DeliveryJob) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.jobs = append(l.jobs, jobs...)
	return nil
}

func record(key string, hash byte) app.InboundRecord {
	return app.InboundRecord{ID: ids.New("svc"), AccountID: "acc_1", Event: domain.InboundNewLead,
		Fields: map[string]string{"name": "x", "email": "x@example.com"}, IdempotencyKey: key,
		BodyHash: []byte{hash}, ReceivedAt: time.Now().UTC()}
}

// accept is what ReceiveInbound does with the store: Accept and, when it created the record,
// publish the event, in one unit of work.
func accept(uow pgkit.Transactor, store *postgres.Store, rec app.InboundRecord, since time.Time) (app.InboundRecord, bool, error) {
	var (
		stored  app.InboundRecord
		created bool
	)
	err := uow.InTx(context.Background(), func(ctx context.Context) error {
		var err error
		stored, created, err = store.Accept(ctx, rec, since)
		if err != nil || !created {
			return err
		}
		return events.Outbox{}.Publish(ctx, contracts.Event{Type: "inbound.new_lead", AccountID: rec.AccountID,
			Data: map[string]string{"inboundId": rec.ID}})
	})
	return stored, created, err
}

// Copies of one delivery arriving at once (a sender retrying on a timeout) store one record.
func TestConcurrentCopiesOfOneInboundEventStoreOneRecord(t *testing.T) {
	t.Parallel()
	for name, key := range map[string]string{"by idempotency key": "k-1", "by body": ""} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store, sqlInt, uow := newStoreAndUnitOfWork(t)
			var wg sync.WaitGroup
			results := make(chan app.InboundRecord, 8)
			created := make(chan bool, 8)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rec := record(key, 7)
					stored, ok, err := accept(uow, store, rec, time.Now().Add(-time.Hour))
					require.NoError(t, err)
					results <- stored
					created <- ok
				}()
			}
			wg.Wait()
			close(results)
			close(created)
			first := (<-results).ID
			for r := range results {
				require.Equal(t, first, r.ID)
			}
			n := 0
			for c := range created {
				if c {
					n++
				}
			}
			require.Equal(t, 1, n)
			require.Equal(t, 1, sqlInt(`SELECT count(*) FROM inbox`))
			require.Equal(t, 1, sqlInt(`SELECT count(*) FROM outbox WHERE type = 'inbound.new_lead'`))
		})
	}
}

func TestTheSameBodyAfterTheWindowIsANewEvent(t *testing.T) {
	t.Parallel()
	store, sqlInt, uow := newStoreAndUnitOfWork(t)
	old := record("", 9)
	old.ReceivedAt = time.Now().Add(-25 * time.Hour)
	_, created, err := accept(uow, store, old, time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.True(t, created)
	fresh := record("", 9)
	_, created, err = accept(uow, store, fresh, time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM inbox`))
}

func TestSecretsAreOnlyForKnownOwners(t *testing.T) {
	t.Parallel()
	store, _ := newStore(t)
	ctx := context.Background()
	require.NoError(t, store.SaveAccount(ctx, app.NewAccount{AccountID: "acc_c", Email: "c@example.com", Role: "client", OwnerID: "acc_1"}, nil))
	require.ErrorIs(t, store.SetSecret(ctx, "acc_c", domain.HashSecret("x")), app.ErrNotFound)
	require.ErrorIs(t, store.SetSecret(ctx, "acc_unknown", domain.HashSecret("x")), app.ErrNotFound)
	require.NoError(t, store.SetSecret(ctx, "acc_1", domain.HashSecret("new")))
	_, _, err := store.SecretOwner(ctx, domain.HashSecret("s"))
	require.ErrorIs(t, err, app.ErrNotFound, "the rotated-out secret no longer matches")
	owner, stored, err := store.SecretOwner(ctx, domain.HashSecret("new"))
	require.NoError(t, err)
	require.Equal(t, "acc_1", owner)
	require.True(t, domain.SecretMatches(stored, "new"))
}

func TestPruneKeepsQueuedAndRecentDeliveries(t *testing.T) {
	t.Parallel()
	store, sqlInt := newStore(t)
	ctx := context.Background()
	sub, err := domain.NewSubscription("acc_1", domain.OutboundNewLead, "https://h.example/x", domain.TargetPolicy{}, time.Now())
	require.NoError(t, err)
	_, _, err = store.CreateSubscription(ctx, sub)
	require.NoError(t, err)
	msg, err := domain.NewLeadMessage(domain.LeadWritten{LeadID: "lead_1", Name: "x", Email: "x@example.com"})
	require.NoError(t, err)
	for range 4 {
		_, err := store.Plan(ctx, "acc_1", msg)
		require.NoError(t, err)
	}
	require.Equal(t, 4, sqlInt(`SELECT count(*) FROM deliveries`))
	// Two old finished deliveries, one old still queued, one recent finished.
	for _, q := range []string{
		`UPDATE deliveries SET status = 'delivered', created_at = now() - interval '40 days' WHERE id IN (SELECT id FROM deliveries ORDER BY id LIMIT 2)`,
		`UPDATE deliveries SET created_at = now() - interval '40 days' WHERE id = (SELECT id FROM deliveries WHERE status = 'pending' ORDER BY id LIMIT 1)`,
		`UPDATE deliveries SET status = 'failed' WHERE id = (SELECT id FROM deliveries WHERE status = 'pending' ORDER BY id DESC LIMIT 1)`,
	} {
		sqlInt(q)
	}
	pruned, err := app.Prune{Store: store, Retention: 30 * 24 * time.Hour, Now: time.Now}.Handle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, pruned)
	require.Equal(t, 1, sqlInt(`SELECT count(*) FROM deliveries WHERE status = 'pending'`))
	require.Equal(t, 1, sqlInt(`SELECT count(*) FROM deliveries WHERE status = 'failed'`))
}

// Attempts the workers record at once share group-committed transactions; each still lands
// with its own effects, and one that the database refuses fails alone.
func TestConcurrentAttemptsAreRecordedTogetherAndEachApplies(t *testing.T) {
	t.Parallel()
	store, sqlInt, uow := newStoreAndUnitOfWork(t)
	ctx := context.Background()
	sub, err := domain.NewSubscription("acc_1", domain.OutboundNewLead, "https://h.example/x", domain.TargetPolicy{}, time.Now())
	require.NoError(t, err)
	sub, _, err = store.CreateSubscription(ctx, sub)
	require.NoError(t, err)
	msg, err := domain.NewLeadMessage(domain.LeadWritten{LeadID: "lead_1", Name: "x", Email: "x@example.com"})
	require.NoError(t, err)
	for range 40 {
		_, err := store.Plan(ctx, "acc_1", msg)
		require.NoError(t, err)
	}
	var ids []string
	require.NoError(t, uow.InTx(ctx, func(ctx context.Context) error {
		tx, _ := pgkit.TxFrom(ctx)
		rows, err := tx.Query(ctx, `SELECT id FROM deliveries ORDER BY id`)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	}))
	require.Len(t, ids, 40)

	var wg sync.WaitGroup
	errs := make([]error, len(ids)+1)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = store.Record(ctx, app.AttemptRecord{DeliveryID: id, SubscriptionID: sub.ID(), At: time.Now().UTC(),
				StatusCode: 204, Latency: time.Millisecond, Outcome: domain.Delivered})
		}()
	}
	// An attempt of an unknown delivery breaks a foreign key: it fails alone.
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[len(ids)] = store.Record(ctx, app.AttemptRecord{DeliveryID: "msg_missing", SubscriptionID: sub.ID(), At: time.Now().UTC(),
			StatusCode: 204, Outcome: domain.Delivered})
	}()
	wg.Wait()
	for _, err := range errs[:len(ids)] {
		require.NoError(t, err)
	}
	require.Error(t, errs[len(ids)])
	require.Equal(t, 40, sqlInt(`SELECT count(*) FROM delivery_attempts`))
	require.Equal(t, 40, sqlInt(`SELECT count(*) FROM deliveries WHERE status = 'delivered' AND attempts = 1`))
}

// Whatever the attempts recorded together, each applies its own effects: a failure starts its
// subscription's streak, a success after failures ends it, a 410 removes the subscription, a
// retry of a dispatched delivery is queued.
func TestAttemptsRecordedTogetherApplyTheirOwnEffects(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "integrations", pgkit.Source{Name: "integrations", FS: migrations.FS}, events.Migrations)
	jobs := &jobLog{}
	store := postgres.New(pool, jobs, sealboxtest.New(t))
	ctx := context.Background()
	count := func(sql string, args ...any) int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, sql, args...).Scan(&n))
		return n
	}
	msg, err := domain.NewLeadMessage(domain.LeadWritten{LeadID: "lead_1", Name: "x", Email: "x@example.com"})
	require.NoError(t, err)
	subs := map[string]domain.Subscription{}
	for _, name := range []string{"failing", "recovering", "gone"} {
		sub, err := domain.NewSubscription("acc_1", domain.OutboundNewLead, "https://h.example/"+name, domain.TargetPolicy{}, time.Now())
		require.NoError(t, err)
		subs[name], _, err = store.CreateSubscription(ctx, sub)
		require.NoError(t, err)
	}
	_, err = pool.Exec(ctx, `UPDATE subscriptions SET failing_since = now() - interval '1 hour' WHERE id = $1`, subs["recovering"].ID())
	require.NoError(t, err)
	_, err = store.Plan(ctx, "acc_1", msg)
	require.NoError(t, err)
	jobs.jobs = nil // the plan's own
	delivery := func(name string) string {
		var id string
		require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM deliveries WHERE subscription_id = $1`, subs[name].ID()).Scan(&id))
		return id
	}
	now := time.Now().UTC()
	records := []app.AttemptRecord{
		{DeliveryID: delivery("failing"), SubscriptionID: subs["failing"].ID(), At: now, StatusCode: 500, Outcome: domain.Failed, Error: "HTTP 500",
			Requeue: &app.DeliveryJob{DeliveryID: delivery("failing"), AccountID: "acc_1", At: now.Add(time.Second), Failures: 1}},
		{DeliveryID: delivery("recovering"), SubscriptionID: subs["recovering"].ID(), At: now, StatusCode: 200, Outcome: domain.Delivered, Recovered: true},
		{DeliveryID: delivery("gone"), SubscriptionID: subs["gone"].ID(), At: now, StatusCode: 410, Outcome: domain.Gone},
	}
	var wg sync.WaitGroup
	for _, r := range records {
		wg.Go(func() { require.NoError(t, store.Record(ctx, r)) })
	}
	wg.Wait()

	require.Equal(t, 1, count(`SELECT count(*) FROM subscriptions WHERE id = $1 AND failing_since IS NOT NULL`, subs["failing"].ID()))
	require.Equal(t, 1, count(`SELECT count(*) FROM deliveries WHERE subscription_id = $1 AND status = 'pending' AND attempts = 1`, subs["failing"].ID()))
	require.Equal(t, 1, count(`SELECT count(*) FROM subscriptions WHERE id = $1 AND failing_since IS NULL`, subs["recovering"].ID()))
	require.Equal(t, 1, count(`SELECT count(*) FROM deliveries WHERE subscription_id = $1 AND status = 'delivered'`, subs["recovering"].ID()))
	require.Zero(t, count(`SELECT count(*) FROM subscriptions WHERE id = $1`, subs["gone"].ID()))
	require.Equal(t, 2, count(`SELECT count(*) FROM delivery_attempts`), "a 410 leaves no attempt: its subscription is gone")
	require.Equal(t, []app.DeliveryJob{*records[0].Requeue}, jobs.jobs, "the dispatched failure queued its retry")
}
