package postgres_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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

// accept stores rec as ReceiveInbound does, with its inbound.new_lead event.
func accept(store *postgres.Store, rec app.InboundRecord, since time.Time) (app.Accepted, error) {
	return store.Accept(context.Background(), rec, since, contracts.Event{Type: "inbound.new_lead", AccountID: rec.AccountID,
		Data: map[string]string{"inboundId": rec.ID}})
}

// Copies of one delivery arriving at once (a sender retrying on a timeout) store one record.
func TestConcurrentCopiesOfOneInboundEventStoreOneRecord(t *testing.T) {
	t.Parallel()
	for name, key := range map[string]string{"by idempotency key": "k-1", "by body": ""} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store, sqlInt := newStore(t)
			var wg sync.WaitGroup
			results := make(chan app.InboundRecord, 8)
			created := make(chan bool, 8)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rec := record(key, 7)
					acc, err := accept(store, rec, time.Now().Add(-time.Hour))
					require.NoError(t, err)
					results <- acc.Stored
					created <- acc.Created
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
	store, sqlInt := newStore(t)
	old := record("", 9)
	old.ReceivedAt = time.Now().Add(-25 * time.Hour)
	acc, err := accept(store, old, time.Now().Add(-48*time.Hour))
	require.NoError(t, err)
	require.True(t, acc.Created)
	acc, err = accept(store, record("", 9), time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.True(t, acc.Created)
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM inbox`))

	within := record("", 9)
	acc, err = accept(store, within, time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.False(t, acc.Created, "within the window of the newer one it is a copy")
	require.NotEqual(t, within.ID, acc.Stored.ID)
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM inbox`))
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM outbox`))

	keyed := record("k-9", 9)
	acc, err = accept(store, keyed, time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.True(t, acc.Created, "a key makes the record its own event, whatever its body")
}

// What integrations knows of a lead's fields: an inbound repeat's newer values win, a late
// lead.written (the first version, consumed after a repeat was accepted) only fills gaps.
func TestKnownLeadFieldsMerge(t *testing.T) {
	t.Parallel()
	store, _ := newStore(t)
	since := time.Now().Add(-time.Hour)
	first := record("", 1)
	first.LeadID, first.LeadFields = "lead_1", map[string]string{"name": "Ann"}
	acc, err := accept(store, first, since)
	require.NoError(t, err)
	require.False(t, acc.Merged)
	require.Empty(t, acc.Known)

	repeat := record("", 2)
	repeat.LeadID, repeat.LeadFields = "lead_1", map[string]string{"name": "Ann Lee", "notes": "n"}
	acc, err = accept(store, repeat, since)
	require.NoError(t, err)
	require.True(t, acc.Merged)
	require.Equal(t, map[string]string{"name": "Ann", "source": "webhook"}, acc.Known)

	added, err := store.KnowLead(context.Background(), first.AccountID, "lead_1", map[string]string{"name": "Ann", "phone": "+15124723000", "source": "webhook"})
	require.NoError(t, err)
	require.False(t, added)

	third := record("", 3)
	third.LeadID, third.LeadFields = "lead_1", map[string]string{}
	acc, err = accept(store, third, since)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"name": "Ann Lee", "notes": "n", "phone": "+15124723000", "source": "webhook"}, acc.Known)
}

// Storing a new_lead makes its lead known: the first record of an email creates the lead, a
// later one (another body) merges into it. A record the database refuses leaves nothing behind.
func TestAcceptMakesTheLeadKnownInTheSameTransaction(t *testing.T) {
	t.Parallel()
	store, sqlInt := newStore(t)
	since := time.Now().Add(-time.Hour)
	first := record("", 1)
	first.LeadID = "lead_1"
	acc, err := accept(store, first, since)
	require.NoError(t, err)
	require.True(t, acc.Created)
	require.False(t, acc.Merged)

	again := record("", 2)
	again.LeadID = "lead_1"
	acc, err = accept(store, again, since)
	require.NoError(t, err)
	require.True(t, acc.Created)
	require.True(t, acc.Merged, "the same lead again")

	copied := record("", 2)
	copied.LeadID = "lead_1"
	acc, err = accept(store, copied, since)
	require.NoError(t, err)
	require.False(t, acc.Created)
	require.False(t, acc.Merged, "a copy merges nothing: it is not stored")
	require.Equal(t, 1, sqlInt(`SELECT count(*) FROM known_leads`))

	stranger := record("", 3)
	stranger.AccountID, stranger.LeadID = "acc_unknown", "lead_2"
	_, err = accept(store, stranger, since)
	require.Error(t, err, "an account this service does not know")
	require.Zero(t, sqlInt(`SELECT count(*) FROM known_leads WHERE lead_id = 'lead_2'`))
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM inbox`))
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM outbox`))
}

// A looked-up secret is remembered briefly: a rotation through the same store is seen at once,
// one through another replica once the memory runs out.
func TestRememberedSecretsFollowRotation(t *testing.T) {
	t.Parallel()
	store, _, uow := newStoreAndUnitOfWork(t)
	replica := postgres.New(uow.DB.(*pgxpool.Pool), noJobs{}, sealboxtest.New(t))
	ctx := context.Background()
	owner, _, err := store.SecretOwner(ctx, domain.HashSecret("s"))
	require.NoError(t, err)
	require.Equal(t, "acc_1", owner)

	require.NoError(t, store.SetSecret(ctx, "acc_1", domain.HashSecret("second")))
	_, _, err = store.SecretOwner(ctx, domain.HashSecret("s"))
	require.ErrorIs(t, err, app.ErrNotFound, "rotated here: forgotten at once")

	_, _, err = store.SecretOwner(ctx, domain.HashSecret("second"))
	require.NoError(t, err)
	require.NoError(t, replica.SetSecret(ctx, "acc_1", domain.HashSecret("third")))
	require.Eventually(t, func() bool {
		_, _, err := store.SecretOwner(ctx, domain.HashSecret("second"))
		return errors.Is(err, app.ErrNotFound)
	}, 10*time.Second, 50*time.Millisecond, "rotated by another replica: forgotten when remembered too long")
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
