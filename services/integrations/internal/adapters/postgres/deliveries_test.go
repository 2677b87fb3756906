package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// deliveryFixture is the delivery store over a fresh schema, with the subscription store it
// reads subscriptions from, the attempt log that records into it as the service's does, and the
// jobs that log queued.
type deliveryFixture struct {
	t      *testing.T
	pool   *pgxpool.Pool
	sqlInt func(sql string, args ...any) int
	subs   *postgres.Subscriptions
	store  *postgres.Deliveries
	log    *app.AttemptLog
	jobs   *jobLog
}

func newDeliveries(t *testing.T) *deliveryFixture {
	t.Helper()
	pool, sqlInt := newDB(t)
	box, reads := sealboxtest.New(t), pgkit.PrimaryReads(pool)
	jobs, store := &jobLog{}, postgres.NewDeliveries(pool, box, reads)
	return &deliveryFixture{t: t, pool: pool, sqlInt: sqlInt, jobs: jobs, store: store,
		log: app.NewAttemptLog(store, pgkit.Transactor{DB: pool}, jobs), subs: postgres.NewSubscriptions(pool, box, reads)}
}

func (f *deliveryFixture) subscribe(accountID, url string) domain.Subscription {
	f.t.Helper()
	sub, err := domain.NewSubscription(accountID, domain.OutboundNewLead, url, domain.TargetPolicy{}, time.Now())
	require.NoError(f.t, err)
	sub, _, err = f.subs.CreateSubscription(context.Background(), sub)
	require.NoError(f.t, err)
	return sub
}

var leadMessage = func() domain.Message {
	msg, err := domain.NewLeadMessage(domain.LeadWritten{LeadID: "lead_1", Name: "x", Email: "x@example.com"})
	if err != nil {
		panic(err)
	}
	return msg
}()

// add plans one delivery of leadMessage to each subscription, claimed for claim (0: unclaimed),
// and returns their ids.
func (f *deliveryFixture) add(claim time.Duration, subs ...domain.Subscription) []string {
	f.t.Helper()
	targets := make([]app.DeliveryTarget, len(subs))
	out := make([]string, len(subs))
	for i, sub := range subs {
		targets[i] = app.DeliveryTarget{DeliveryID: ids.New("msg"), CreatedAt: time.Now().UTC(), Payload: leadMessage.Body, Subscription: sub}
		out[i] = targets[i].DeliveryID
	}
	require.NoError(f.t, f.store.Add(context.Background(), leadMessage, targets, claim))
	return out
}

// inTx runs fn in a transaction, as the use cases' unit of work does.
func (f *deliveryFixture) inTx(fn func(ctx context.Context) error) error {
	return pgkit.Transactor{DB: f.pool}.InTx(context.Background(), fn)
}

// A planned delivery is pending with its message; claimed for its process's dispatcher on the
// database's clock, or unclaimed for a queued job. Target loads it with its subscription's
// secret opened, and only while it is pending.
func TestDeliveriesAreAddedClaimedOrNotAndLoadedWhilePending(t *testing.T) {
	t.Parallel()
	f := newDeliveries(t)
	sub := f.subscribe("acc_1", "https://h.example/x")
	claimed := f.add(45*time.Second, sub)[0]
	queued := f.add(0, sub)[0]
	require.Equal(t, 1, f.sqlInt(`SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'pending'
		AND claimed_until BETWEEN now() + interval '40 seconds' AND now() + interval '50 seconds'`, claimed))
	require.Equal(t, 1, f.sqlInt(`SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'pending' AND claimed_until IS NULL
		AND event = 'new_lead' AND payload = $2`, queued, leadMessage.Body))

	target, err := f.store.Target(context.Background(), queued)
	require.NoError(t, err)
	require.Equal(t, queued, target.DeliveryID)
	require.JSONEq(t, string(leadMessage.Body), string(target.Payload))
	require.Equal(t, sub.Secret(), target.Subscription.Secret(), "the signing secret is opened")
	f.sqlInt(`UPDATE deliveries SET status = 'delivered' WHERE id = $1`, queued)
	_, err = f.store.Target(context.Background(), queued)
	require.ErrorIs(t, err, app.ErrNotFound, "a finished delivery is not attempted again")
	_, err = f.store.Target(context.Background(), "msg_missing")
	require.ErrorIs(t, err, app.ErrNotFound)
}

// Ending claims hands each still-claimed pending delivery over once, with its account for the
// job; expired claims only when they have run out.
func TestClaimsEndOnceAndExpiredOnesOnlyWhenRunOut(t *testing.T) {
	t.Parallel()
	f := newDeliveries(t)
	sub := f.subscribe("acc_1", "https://h.example/x")
	claimed := f.add(time.Minute, sub, sub, sub)
	unclaimed := f.add(0, sub)[0]
	var jobs []app.DeliveryJob
	require.NoError(t, f.inTx(func(ctx context.Context) (err error) {
		jobs, err = f.store.EndClaims(ctx, []string{claimed[0], unclaimed})
		return err
	}))
	require.Equal(t, []app.DeliveryJob{{DeliveryID: claimed[0], AccountID: "acc_1", SubscriptionID: sub.ID()}}, jobs, "only a claimed delivery is handed over")
	require.NoError(t, f.inTx(func(ctx context.Context) (err error) {
		jobs, err = f.store.EndClaims(ctx, []string{claimed[0]})
		return err
	}))
	require.Empty(t, jobs, "a delivery is handed over once")

	require.NoError(t, f.inTx(func(ctx context.Context) (err error) {
		jobs, err = f.store.EndExpiredClaims(ctx, 10)
		return err
	}))
	require.Empty(t, jobs, "claims that have not run out stay")
	f.sqlInt(`UPDATE deliveries SET claimed_until = now() - interval '1 second' WHERE id = $1`, claimed[1])
	f.sqlInt(`UPDATE deliveries SET claimed_until = now() - interval '1 second', status = 'delivered' WHERE id = $1`, claimed[2])
	require.NoError(t, f.inTx(func(ctx context.Context) (err error) {
		jobs, err = f.store.EndExpiredClaims(ctx, 10)
		return err
	}))
	require.Equal(t, []app.DeliveryJob{{DeliveryID: claimed[1], AccountID: "acc_1", SubscriptionID: sub.ID()}}, jobs, "an expired claim of a pending delivery")
	require.Equal(t, 4, f.sqlInt(`SELECT count(*) FROM deliveries WHERE claimed_until IS NULL OR status <> 'pending'`))
}

// A finished delivery of the account's active subscription can be reopened for a replay under its
// id; a pending one cannot, nor another account's.
func TestReopenIsForTheAccountsFinishedDeliveries(t *testing.T) {
	t.Parallel()
	f := newDeliveries(t)
	sub := f.subscribe("acc_1", "https://h.example/x")
	id := f.add(0, sub)[0]
	reopen := func(accountID string) (app.DeliveryJob, error) {
		var job app.DeliveryJob
		err := f.inTx(func(ctx context.Context) (err error) {
			job, err = f.store.Reopen(ctx, accountID, id)
			return err
		})
		return job, err
	}
	_, err := reopen("acc_1")
	require.ErrorIs(t, err, app.ErrPending)
	f.sqlInt(`UPDATE deliveries SET status = 'failed', created_at = now() - interval '3 days' WHERE id = $1`, id)
	_, err = reopen("acc_other")
	require.ErrorIs(t, err, app.ErrNotFound)
	job, err := reopen("acc_1")
	require.NoError(t, err)
	require.Equal(t, app.DeliveryJob{DeliveryID: id, AccountID: "acc_1", SubscriptionID: sub.ID()}, job)
	require.Equal(t, 1, f.sqlInt(`SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'pending' AND created_at > now() - interval '1 minute'`, id),
		"pending again, its retry window starting over")
	f.sqlInt(`UPDATE deliveries SET status = 'delivered' WHERE id = $1`, id)
	f.sqlInt(`UPDATE subscriptions SET status = 'disabled' WHERE id = $1`, sub.ID())
	_, err = reopen("acc_1")
	require.ErrorIs(t, err, app.ErrNotFound, "a disabled subscription's deliveries are not replayed")
}

// The attempt log lists the newest attempts of the account's own subscription.
func TestTheAttemptLogIsTheAccountsOwn(t *testing.T) {
	t.Parallel()
	f := newDeliveries(t)
	ctx := context.Background()
	sub := f.subscribe("acc_1", "https://h.example/x")
	id := f.add(0, sub)[0]
	at := time.Now().UTC().Truncate(time.Millisecond)
	for i, code := range []int{500, 204} {
		require.NoError(t, f.log.Record(ctx, app.AttemptRecord{DeliveryID: id, SubscriptionID: sub.ID(), At: at.Add(time.Duration(i) * time.Second),
			StatusCode: code, Latency: 12 * time.Millisecond, Outcome: map[int]domain.Outcome{500: domain.Failed, 204: domain.Delivered}[code],
			Error: map[int]string{500: "HTTP 500"}[code]}))
	}
	got, err := f.store.Attempts(ctx, "acc_1", sub.ID(), 10)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, app.Attempt{DeliveryID: id, Event: "new_lead", AttemptedAt: got[0].AttemptedAt, StatusCode: 204, LatencyMS: 12}, got[0], "newest first")
	require.Equal(t, "HTTP 500", got[1].Error)
	got, err = f.store.Attempts(ctx, "acc_1", sub.ID(), 1)
	require.NoError(t, err)
	require.Len(t, got, 1)
	_, err = f.store.Attempts(ctx, "acc_other", sub.ID(), 10)
	require.ErrorIs(t, err, app.ErrNotFound)
}

func TestPruneKeepsQueuedAndRecentDeliveries(t *testing.T) {
	t.Parallel()
	f := newDeliveries(t)
	ctx := context.Background()
	sub := f.subscribe("acc_1", "https://h.example/x")
	f.add(0, sub, sub, sub, sub)
	require.Equal(t, 4, f.sqlInt(`SELECT count(*) FROM deliveries`))
	// Two old finished deliveries, one old still queued, one recent finished.
	for _, q := range []string{
		`UPDATE deliveries SET status = 'delivered', created_at = now() - interval '40 days' WHERE id IN (SELECT id FROM deliveries ORDER BY id LIMIT 2)`,
		`UPDATE deliveries SET created_at = now() - interval '40 days' WHERE id = (SELECT id FROM deliveries WHERE status = 'pending' ORDER BY id LIMIT 1)`,
		`UPDATE deliveries SET status = 'failed' WHERE id = (SELECT id FROM deliveries WHERE status = 'pending' ORDER BY id DESC LIMIT 1)`,
	} {
		f.sqlInt(q)
	}
	pruned, err := app.Prune{Stores: []app.Pruner{f.store}, Retention: 30 * 24 * time.Hour, Now: time.Now}.Handle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, pruned)
	require.Equal(t, 1, f.sqlInt(`SELECT count(*) FROM deliveries WHERE status = 'pending'`))
	require.Equal(t, 1, f.sqlInt(`SELECT count(*) FROM deliveries WHERE status = 'failed'`))
}

// Attempts the workers record at once share group-committed transactions; each still lands
// with its own effects, and one that the database refuses fails alone.
func TestConcurrentAttemptsAreRecordedTogetherAndEachApplies(t *testing.T) {
	t.Parallel()
	f := newDeliveries(t)
	ctx := context.Background()
	sub := f.subscribe("acc_1", "https://h.example/x")
	subs := make([]domain.Subscription, 40)
	for i := range subs {
		subs[i] = sub
	}
	ids := f.add(0, subs...)

	var wg sync.WaitGroup
	errs := make([]error, len(ids)+1)
	for i, id := range ids {
		wg.Go(func() {
			errs[i] = f.log.Record(ctx, app.AttemptRecord{DeliveryID: id, SubscriptionID: sub.ID(), At: time.Now().UTC(),
				StatusCode: 204, Latency: time.Millisecond, Outcome: domain.Delivered})
		})
	}
	// An attempt of an unknown delivery breaks a foreign key: it fails alone.
	wg.Go(func() {
		errs[len(ids)] = f.log.Record(ctx, app.AttemptRecord{DeliveryID: "msg_missing", SubscriptionID: sub.ID(), At: time.Now().UTC(),
			StatusCode: 204, Outcome: domain.Delivered})
	})
	wg.Wait()
	for _, err := range errs[:len(ids)] {
		require.NoError(t, err)
	}
	require.Error(t, errs[len(ids)])
	require.Equal(t, 40, f.sqlInt(`SELECT count(*) FROM delivery_attempts`))
	require.Equal(t, 40, f.sqlInt(`SELECT count(*) FROM deliveries WHERE status = 'delivered' AND attempts = 1`))
}

// Whatever the attempts recorded together, each applies its own effects: a failure starts its
// subscription's streak, a success after failures ends it, a 410 removes the subscription, a
// retry of a dispatched delivery is queued in the transaction that ends its claim.
func TestAttemptsRecordedTogetherApplyTheirOwnEffects(t *testing.T) {
	t.Parallel()
	f := newDeliveries(t)
	ctx := context.Background()
	subs := map[string]domain.Subscription{}
	for _, name := range []string{"failing", "recovering", "gone"} {
		subs[name] = f.subscribe("acc_1", "https://h.example/"+name)
	}
	f.sqlInt(`UPDATE subscriptions SET failing_since = now() - interval '1 hour' WHERE id = $1`, subs["recovering"].ID())
	delivery := map[string]string{}
	for name, sub := range subs {
		delivery[name] = f.add(time.Minute, sub)[0]
	}
	now := time.Now().UTC()
	records := []app.AttemptRecord{
		{DeliveryID: delivery["failing"], SubscriptionID: subs["failing"].ID(), At: now, StatusCode: 500, Outcome: domain.Failed, Error: "HTTP 500",
			Requeue: &app.DeliveryJob{DeliveryID: delivery["failing"], AccountID: "acc_1", At: now.Add(time.Second), Failures: 1}},
		{DeliveryID: delivery["recovering"], SubscriptionID: subs["recovering"].ID(), At: now, StatusCode: 200, Outcome: domain.Delivered, Recovered: true},
		{DeliveryID: delivery["gone"], SubscriptionID: subs["gone"].ID(), At: now, StatusCode: 410, Outcome: domain.Gone},
	}
	var wg sync.WaitGroup
	for _, r := range records {
		wg.Go(func() { require.NoError(t, f.log.Record(ctx, r)) })
	}
	wg.Wait()

	count := f.sqlInt
	require.Equal(t, 1, count(`SELECT count(*) FROM subscriptions WHERE id = $1 AND failing_since IS NOT NULL`, subs["failing"].ID()))
	require.Equal(t, 1, count(`SELECT count(*) FROM deliveries WHERE subscription_id = $1 AND status = 'pending' AND attempts = 1
		AND claimed_until IS NULL`, subs["failing"].ID()), "the attempt ends the claim: the queued retry owns it")
	require.Equal(t, 1, count(`SELECT count(*) FROM subscriptions WHERE id = $1 AND failing_since IS NULL`, subs["recovering"].ID()))
	require.Equal(t, 1, count(`SELECT count(*) FROM deliveries WHERE subscription_id = $1 AND status = 'delivered'`, subs["recovering"].ID()))
	require.Zero(t, count(`SELECT count(*) FROM subscriptions WHERE id = $1`, subs["gone"].ID()))
	require.Equal(t, 2, count(`SELECT count(*) FROM delivery_attempts`), "a 410 leaves no attempt: its subscription is gone")
	require.Equal(t, []app.DeliveryJob{*records[0].Requeue}, f.jobs.queued(), "the dispatched failure queued its retry, in the record's transaction")
}

// Through the Kubernetes node, DELETE /api/ext-webhook/subscriptions/{id} answered 500 (deadlock
// detected) while a failed attempt of one of its deliveries was being recorded: the record locks
// its delivery and then the subscription (the failure streak), the delete the subscription and
// then, by cascade, its deliveries. PostgreSQL aborts the delete, which now runs again.
func TestASubscriptionDeletedWhileItsAttemptsAreRecordedIsDeleted(t *testing.T) {
	t.Parallel()
	f := newDeliveries(t)
	sub := f.subscribe("acc_1", "https://h.example/x")
	ids := f.add(0, sub, sub)
	deleted := make(chan error, 1)
	err := f.inTx(func(ctx context.Context) error {
		// A success locks its delivery and nothing of the subscription's.
		if err := f.store.RecordAll(ctx, []app.AttemptRecord{{DeliveryID: ids[0], SubscriptionID: sub.ID(),
			At: time.Now().UTC(), StatusCode: 204, Outcome: domain.Delivered}}); err != nil {
			return err
		}
		go func() { deleted <- f.subs.DeleteSubscription(context.Background(), "acc_1", sub.ID()) }()
		require.Eventually(t, func() bool {
			return f.sqlInt(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'
				AND query = 'DELETE FROM subscriptions WHERE id = $1 AND account_id = $2'`) > 0
		}, 10*time.Second, 10*time.Millisecond, "the delete to wait for the recorded delivery")
		// A failure of the other delivery starts the subscription's streak.
		return f.store.RecordAll(ctx, []app.AttemptRecord{{DeliveryID: ids[1], SubscriptionID: sub.ID(),
			At: time.Now().UTC(), StatusCode: 500, Outcome: domain.Failed, Error: "HTTP 500"}})
	})
	require.NoError(t, err, "the record commits")
	require.NoError(t, <-deleted, "the delete goes through after it")
	require.Zero(t, f.sqlInt(`SELECT count(*) FROM subscriptions WHERE id = $1`, sub.ID()))
	require.Zero(t, f.sqlInt(`SELECT count(*) FROM deliveries WHERE subscription_id = $1`, sub.ID()))
}
