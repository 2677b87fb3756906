package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/clocktest"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/analytics/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
	"github.com/bizassist/bizassist/services/analytics/migrations"
)

func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	return pgtest.New(t, "analytics", migrations.Source, events.Migrations)
}

// newStores is a fresh database with its account projection and health store.
func newStores(t *testing.T) (*pgxpool.Pool, *postgres.Accounts, *postgres.Health) {
	t.Helper()
	pool := newPool(t)
	return pool, postgres.NewAccounts(pool), postgres.NewHealth(pool)
}

// recomputeAt scores accounts into store, with the churn model stored in pool, at now.
func recomputeAt(pool *pgxpool.Pool, store *postgres.Health, now func() time.Time) app.Recompute {
	return app.Recompute{Store: store, Models: postgres.NewChurnModels(pool), Outbox: events.Outbox{}, Now: now}
}

var writerCfg = postgres.WriterConfig{Workers: 2, MaxBatch: 50, Timeout: 10 * time.Second}

func newEvent(t testing.TB, account, feature string, at time.Time) usage.Event {
	t.Helper()
	e, err := usage.NewEvent(account, feature, "", json.RawMessage(`{"n":1}`), at)
	require.NoError(t, err)
	return e
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// newWriter is a usage writer over a fresh database, closed when the test ends.
func newWriter(t *testing.T, cfg postgres.WriterConfig) (*pgxpool.Pool, *postgres.UsageWriter) {
	t.Helper()
	pool := newPool(t)
	w := postgres.NewUsageWriter(pool, cfg)
	t.Cleanup(w.Close)
	return pool, w
}

// recordAtOnce records n events, event(i) the i-th, all at once with idem, and returns what each
// logged.
func recordAtOnce(t *testing.T, w *postgres.UsageWriter, n int, idem *app.Idempotency, event func(i int) usage.Event) []app.Logged {
	t.Helper()
	var wg sync.WaitGroup
	results := make(chan app.Logged, n)
	for i := range n {
		wg.Go(func() {
			logged, err := w.Record(context.Background(), event(i), idem)
			if err != nil {
				t.Error(err)
				return
			}
			results <- logged
		})
	}
	wg.Wait()
	close(results)
	out := make([]app.Logged, 0, n)
	for l := range results {
		out = append(out, l)
	}
	return out
}

func TestWriterStoresConcurrentEventsAndTheirRollup(t *testing.T) {
	t.Parallel()
	pool, w := newWriter(t, writerCfg)
	ctx := context.Background()
	now := time.Now().UTC()

	const n = 300
	logged := recordAtOnce(t, w, n, nil, func(i int) usage.Event {
		return newEvent(t, "acc_a", []string{"chat", "lead_finder", "audit_tool"}[i%3], now)
	})
	require.Len(t, logged, n)
	require.Equal(t, n, count(t, pool, `SELECT count(*) FROM usage_events WHERE account_id = 'acc_a' AND source = 'api'`))
	require.Equal(t, n/3, count(t, pool, `SELECT sum(uses)::int FROM usage_daily WHERE account_id = 'acc_a' AND feature = 'chat'`))
	require.Equal(t, 1, count(t, pool, `SELECT count(DISTINCT account_id)::int FROM dirty_accounts WHERE account_id = 'acc_a'`))

	used, err := postgres.NewAllowances(pool).MonthlyUse(ctx, "acc_a", now.AddDate(0, 0, -1), now.AddDate(0, 0, 1))
	require.NoError(t, err)
	require.Empty(t, used, "logged uses of metered features are kept, not counted against the allowance: the features reserve")
}

func TestWriterReplaysAnIdempotencyKey(t *testing.T) {
	t.Parallel()
	pool, w := newWriter(t, writerCfg)
	ctx := context.Background()
	idem := &app.Idempotency{Key: "retry-1", Fingerprint: []byte("same request")}

	// Concurrent retries of one request, in one batch or across batches, store one event.
	results := recordAtOnce(t, w, 20, idem, func(int) usage.Event { return newEvent(t, "acc_k", "chat", time.Now()) })
	require.Len(t, results, 20)
	first := results[0]
	computed := 0
	for _, r := range results {
		require.Equal(t, first.EventID, r.EventID)
		require.Equal(t, first.At, r.At)
		if !r.Replayed {
			computed++
		}
	}
	require.Equal(t, 1, computed, "every answer but the first is a replay")
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM usage_events WHERE account_id = 'acc_k'`))
	require.Equal(t, 1, count(t, pool, `SELECT sum(uses)::int FROM usage_daily WHERE account_id = 'acc_k'`))

	// Another account may use the same key; a different request may not.
	_, err := w.Record(ctx, newEvent(t, "acc_other", "chat", time.Now()), idem)
	require.NoError(t, err)
	_, err = w.Record(ctx, newEvent(t, "acc_k", "chat", time.Now()), &app.Idempotency{Key: "retry-1", Fingerprint: []byte("other")})
	require.Equal(t, apperr.KindConflict, apperr.KindOf(err))

	// Once expired, the key is free: the same request is a new event.
	n, err := w.ExpireKeys(ctx, time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	again, err := w.Record(ctx, newEvent(t, "acc_k", "chat", time.Now()), idem)
	require.NoError(t, err)
	require.NotEqual(t, first.EventID, again.EventID)
}

func TestWriterCommitsQueuedEventsOnCloseAndRefusesLaterOnes(t *testing.T) {
	t.Parallel()
	pool, w := newWriter(t, writerCfg)
	ctx := context.Background()
	var wg sync.WaitGroup
	acked := make(chan string, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if logged, err := w.Record(ctx, newEvent(t, "acc_c", "chat", time.Now()), nil); err == nil {
				acked <- logged.EventID
			}
		}()
	}
	w.Close()
	wg.Wait()
	close(acked)
	for id := range acked {
		require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM usage_events WHERE event_id = $1`, id))
	}
	_, err := w.Record(ctx, newEvent(t, "acc_c", "chat", time.Now()), nil)
	require.Equal(t, apperr.KindUnavailable, apperr.KindOf(err))
}

func TestPlanLimitsAreRows(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	ctx := context.Background()
	a := postgres.NewAllowances(pool)
	limits, err := a.Limits(ctx, "growth")
	require.NoError(t, err)
	require.Equal(t, map[usage.Feature]int{usage.Chat: 1000, usage.LeadScoring: usage.Unlimited, usage.LeadFinder: 300}, limits)
	limits, err = a.Limits(ctx, "full_stack")
	require.NoError(t, err)
	require.Equal(t, usage.Unlimited, limits[usage.Chat])

	_, err = pool.Exec(ctx, `UPDATE plan_limits SET monthly_limit = 75 WHERE plan = 'free' AND feature = 'chat'`)
	require.NoError(t, err)
	limits, err = a.Limits(ctx, "free")
	require.NoError(t, err)
	require.Equal(t, 75, limits[usage.Chat])
}

// project runs fn in a transaction that its ctx carries, as the event consumer does.
func project(t *testing.T, pool *pgxpool.Pool, fn func(ctx context.Context) error) {
	t.Helper()
	require.NoError(t, pgkit.Transactor{DB: pool}.InTx(context.Background(), fn))
}

// beActive gives the account a month of daily logins and usage up to now.
func beActive(t *testing.T, pool *pgxpool.Pool, accounts *postgres.Accounts, id string, now time.Time) {
	t.Helper()
	project(t, pool, func(ctx context.Context) error {
		for d := range 25 {
			at := now.AddDate(0, 0, -d)
			if err := accounts.LoggedIn(ctx, id, "", at); err != nil {
				return err
			}
			for i, f := range []string{"chat", "chat", "lead_finder", "lead_scoring", "audit_tool"} {
				e := usage.Recorded(fmt.Sprintf("evt_%s_%d_%d_%d", id, now.Unix(), d, i), id, f, "", 2, at)
				if err := accounts.UsageRecorded(ctx, e); err != nil {
					return err
				}
			}
			if err := accounts.Activity(ctx, id, app.ActivityLead, at); err != nil {
				return err
			}
		}
		return nil
	})
}

func alerts(t *testing.T, pool *pgxpool.Pool) []events.Envelope {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT payload FROM outbox WHERE type = 'health.critical' ORDER BY created_at, id`)
	require.NoError(t, err)
	envs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (events.Envelope, error) {
		var e events.Envelope
		err := r.Scan(&e)
		return e, err
	})
	require.NoError(t, err)
	return envs
}

// ownerAndClient is a fresh database with acc_owner, made a year before clk's time, and client as
// one of its clients projected, and the recompute that scores them at clk's time.
func ownerAndClient(t *testing.T, clk *clocktest.Clock, client app.NewAccount) (*pgxpool.Pool, *postgres.Accounts, *postgres.Health, app.Recompute) {
	t.Helper()
	pool, accounts, store := newStores(t)
	client.OwnerID = "acc_owner"
	project(t, pool, func(ctx context.Context) error {
		if err := accounts.Created(ctx, app.NewAccount{AccountID: "acc_owner", Email: "owner@x.test", Plan: "growth", CreatedAt: clk.Now().AddDate(-1, 0, 0)}); err != nil {
			return err
		}
		return accounts.Created(ctx, client)
	})
	return pool, accounts, store, recomputeAt(pool, store, clk.Now)
}

// A client invited and never active is critical from its first score: that is an entry too,
// told once however often it is recomputed.
func TestAFirstScoreAlreadyCriticalFiresOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clocktest.New(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	pool, _, store, recompute := ownerAndClient(t, clk, app.NewAccount{AccountID: "acc_quiet",
		Email: "quiet@x.test", BusinessName: "Quiet Co", Plan: "free", CreatedAt: clk.Now().AddDate(0, -2, 0)})
	for range 3 {
		require.NoError(t, recompute.Handle(ctx, []string{"acc_quiet"}))
		clk.Advance(time.Hour)
	}
	s, ok, err := store.Current(ctx, "acc_quiet")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, health.Critical, s.Tier)
	got := alerts(t, pool)
	require.Len(t, got, 1)
	require.Equal(t, "acc_owner", got[0].AccountID)
}

func TestHealthCriticalFiresOncePerEntryIntoCritical(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clocktest.New(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	pool, accounts, store, recompute := ownerAndClient(t, clk, app.NewAccount{AccountID: "acc_client",
		Email: "client@x.test", BusinessName: "Client Co", Plan: "free", CreatedAt: clk.Now().AddDate(-1, 0, 0)})

	beActive(t, pool, accounts, "acc_client", clk.Now())
	require.NoError(t, recompute.Handle(ctx, []string{"acc_client", "acc_owner"}))
	s, ok, err := store.Current(ctx, "acc_client")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, health.Healthy, s.Tier)
	require.Empty(t, alerts(t, pool))

	// Nothing happens for three months: the client falls below 30; the owner never alerts.
	var tiers []health.Tier
	for range 90 {
		clk.Advance(24 * time.Hour)
		require.NoError(t, recompute.Handle(ctx, []string{"acc_client", "acc_owner"}))
		s, _, err = store.Current(ctx, "acc_client")
		require.NoError(t, err)
		if len(tiers) == 0 || tiers[len(tiers)-1] != s.Tier {
			tiers = append(tiers, s.Tier)
		}
	}
	require.Equal(t, []health.Tier{health.Healthy, health.AtRisk, health.Critical}, tiers)
	got := alerts(t, pool)
	require.Len(t, got, 1, "one alert for one entry, however often it is recomputed while critical")
	require.Equal(t, "acc_owner", got[0].AccountID)
	var data map[string]any
	require.NoError(t, json.Unmarshal(got[0].Data, &data))
	require.Equal(t, "acc_client", data["clientAccountId"])
	require.Equal(t, "client@x.test", data["email"])
	require.Equal(t, "Client Co", data["businessName"])
	require.Less(t, data["score"], float64(30))
	require.Contains(t, data["recommendation"], "Weakest signals: ")
	require.NotEmpty(t, data["at"])

	// It recovers, then relapses: a second alert.
	beActive(t, pool, accounts, "acc_client", clk.Now())
	require.NoError(t, recompute.Handle(ctx, []string{"acc_client"}))
	s, _, err = store.Current(ctx, "acc_client")
	require.NoError(t, err)
	require.NotEqual(t, health.Critical, s.Tier)
	require.Len(t, alerts(t, pool), 1)
	clk.Advance(90 * 24 * time.Hour)
	require.NoError(t, recompute.Handle(ctx, []string{"acc_client"}))
	require.NoError(t, recompute.Handle(ctx, []string{"acc_client"}))
	require.Len(t, alerts(t, pool), 2)

	// History keeps one row per change, not per recompute.
	changes := count(t, pool, `SELECT count(*) FROM health_scores WHERE account_id = 'acc_client'`)
	require.Greater(t, changes, 3)
	require.Less(t, changes, 90)
}

func TestRecomputeClearsDirtyMarksAndRanksAtRiskClients(t *testing.T) {
	t.Parallel()
	pool, accounts, store := newStores(t)
	ctx := context.Background()
	now := time.Date(2026, 4, 20, 12, 0, 0, 0, time.UTC)
	project(t, pool, func(ctx context.Context) error {
		for i, id := range []string{"acc_c1", "acc_c2", "acc_c3"} {
			if err := accounts.Created(ctx, app.NewAccount{AccountID: id, OwnerID: "acc_o",
				Email: id + "@x.test", BusinessName: id, Plan: "free", CreatedAt: now.AddDate(0, -i-1, 0)}); err != nil {
				return err
			}
		}
		return accounts.Created(ctx, app.NewAccount{AccountID: "acc_stranger", OwnerID: "acc_elsewhere", Plan: "free", CreatedAt: now})
	})
	beActive(t, pool, accounts, "acc_c1", now)
	project(t, pool, func(ctx context.Context) error { return accounts.LoggedIn(ctx, "acc_c2", "", now.AddDate(0, 0, -10)) })

	unscored, err := store.Unscored(ctx, "acc_o")
	require.NoError(t, err)
	require.Equal(t, []string{"acc_c1", "acc_c2", "acc_c3"}, unscored)

	w := app.Worker{Store: store, Recompute: recomputeAt(pool, store, func() time.Time { return now }), BatchSize: 2}
	n, err := w.RecomputeDirty(ctx)
	require.NoError(t, err)
	require.Equal(t, 4, n)
	require.Zero(t, count(t, pool, `SELECT count(*) FROM dirty_accounts`))
	n, err = w.RecomputeAll(ctx)
	require.NoError(t, err)
	require.Equal(t, 4, n)

	clients, total, err := store.AtRisk(ctx, "acc_o", 0, 2)
	require.NoError(t, err)
	require.Equal(t, 3, total)
	require.Len(t, clients, 2)
	require.Equal(t, "acc_c3", clients[0].AccountID, "never logged in: highest churn")
	require.Equal(t, "acc_c2", clients[1].AccountID)
	require.GreaterOrEqual(t, clients[0].Score.Churn, clients[1].Score.Churn)
	require.True(t, clients[0].LastLoginAt.IsZero())
	require.Equal(t, now.AddDate(0, 0, -10), clients[1].LastLoginAt)

	clients, total, err = store.AtRisk(ctx, "acc_o", 101, 10)
	require.NoError(t, err)
	require.Zero(t, total)
	require.Empty(t, clients)
}

func TestPaymentEventsMoveThePaymentSignal(t *testing.T) {
	t.Parallel()
	pool, accounts, store := newStores(t)
	ctx := context.Background()
	now := time.Date(2026, 4, 20, 12, 0, 0, 0, time.UTC)
	project(t, pool, func(ctx context.Context) error {
		if err := accounts.Created(ctx, app.NewAccount{AccountID: "acc_p", Plan: "growth", CreatedAt: now}); err != nil {
			return err
		}
		pay := app.NewProjections(accounts).Payment
		if err := pay.Handle(ctx, app.PaymentCommand{AccountID: "acc_p", Event: health.PaymentEvent{Type: "invoice.payment_failed"}, At: now}); err != nil {
			return err
		}
		// An older event arriving late changes nothing.
		return pay.Handle(ctx, app.PaymentCommand{AccountID: "acc_p", Event: health.PaymentEvent{Type: "invoice.paid"}, At: now.Add(-time.Hour)})
	})
	require.NoError(t, recomputeAt(pool, store, func() time.Time { return now }).Handle(ctx, []string{"acc_p"}))
	s, _, err := store.Current(ctx, "acc_p")
	require.NoError(t, err)
	require.Equal(t, 40, s.Signals[health.PaymentHealth])
}

func TestChurnModelIsFittedFromObservedCancellations(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	ctx := context.Background()
	now := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	models := postgres.NewChurnModels(pool)
	fit := app.FitChurnModel{Models: models, Now: func() time.Time { return now }}

	_, err := fit.Handle(ctx)
	require.ErrorIs(t, err, health.ErrTooFewChurnSamples)
	_, fitted, err := models.Current(ctx)
	require.NoError(t, err)
	require.False(t, fitted)

	// 60 cancelled accounts that had mostly stopped logging in three weeks before cancelling,
	// 60 still paying that mostly had not; a demo account and a history row newer than the
	// horizon must not count.
	for _, sql := range []string{
		`INSERT INTO accounts (account_id, plan, created_at, payment_status, payment_at, demo)
		SELECT 'acc_' || i, 'growth', $1::timestamptz - interval '1 year',
			CASE WHEN i <= 60 THEN 'canceled' ELSE 'active' END, $1::timestamptz - interval '5 days', i = 121
		FROM generate_series(1, 121) AS i`,
		`INSERT INTO health_scores (account_id, computed_at, score, tier, churn, signals)
		SELECT 'acc_' || i, $1::timestamptz - interval '40 days', 50, 'at_risk', 20,
			jsonb_build_object('loginRecency', CASE WHEN (i <= 60) = (i % 6 <> 0) THEN 0 ELSE 100 END,
				'paymentHealth', 100, 'tenure', 100)
		FROM generate_series(1, 121) AS i`,
		`INSERT INTO health_scores (account_id, computed_at, score, tier, churn, signals)
		SELECT 'acc_' || i, $1::timestamptz - interval '1 day', 0, 'critical', 99, '{"loginRecency": 0}'
		FROM generate_series(61, 120) AS i`,
	} {
		_, err = pool.Exec(ctx, sql, now)
		require.NoError(t, err)
	}

	got, err := fit.Handle(ctx)
	require.NoError(t, err)
	require.Equal(t, 60, got.Churned)
	require.Equal(t, 60, got.Retained)
	require.Less(t, got.Model.Coefficients[health.LoginRecency], -1.0, "not logging in predicts cancelling")

	stored, fitted, err := models.Current(ctx)
	require.NoError(t, err)
	require.True(t, fitted)
	require.InDelta(t, got.Model.Intercept, stored.Intercept, 1e-9)

	// Recomputes use the fitted model from now on.
	accounts, store := postgres.NewAccounts(pool), postgres.NewHealth(pool)
	project(t, pool, func(ctx context.Context) error {
		return accounts.Created(ctx, app.NewAccount{AccountID: "acc_new", Plan: "growth", CreatedAt: now.AddDate(-1, 0, 0)})
	})
	require.NoError(t, recomputeAt(pool, store, func() time.Time { return now }).Handle(ctx, []string{"acc_new"}))
	s, _, err := store.Current(ctx, "acc_new")
	require.NoError(t, err)
	require.Equal(t, stored.Probability(s.Signals), s.Churn)
	require.NotEqual(t, health.DefaultChurnModel.Probability(s.Signals), s.Churn)
}

func TestDemoSeedGivesTheOwnerASpreadOfClientsOnce(t *testing.T) {
	t.Parallel()
	pool, accounts, store := newStores(t)
	ctx := context.Background()
	now := time.Date(2026, 5, 20, 15, 0, 0, 0, time.UTC)
	seed := app.SeedDemo{Store: postgres.NewDemo(pool), Now: func() time.Time { return now },
		Recompute: recomputeAt(pool, store, func() time.Time { return now })}

	_, err := seed.Handle(ctx, "demo-growth@bizassist.local")
	require.ErrorIs(t, err, app.ErrDemoOwnerUnknown, "the owner has not been projected yet")

	project(t, pool, func(ctx context.Context) error {
		return accounts.Created(ctx, app.NewAccount{AccountID: "acc_demo_owner", Email: "demo-growth@bizassist.local", Plan: "growth", CreatedAt: now})
	})
	n, err := seed.Handle(ctx, "demo-growth@bizassist.local")
	require.NoError(t, err)
	require.Equal(t, 8, n)
	n, err = seed.Handle(ctx, "demo-growth@bizassist.local")
	require.NoError(t, err)
	require.Zero(t, n, "idempotent")

	clients, total, err := store.AtRisk(ctx, "acc_demo_owner", 0, 100)
	require.NoError(t, err)
	require.Equal(t, 8, total)
	tiers := map[health.Tier]int{}
	for _, c := range clients {
		tiers[c.Score.Tier]++
	}
	require.Positive(t, tiers[health.Healthy], tiers)
	require.Positive(t, tiers[health.AtRisk], tiers)
	require.Positive(t, tiers[health.Critical], tiers)
	require.Equal(t, 8, count(t, pool, `SELECT count(*) FROM accounts WHERE demo AND owner_id = 'acc_demo_owner'`))
}

// One request's value that PostgreSQL refuses fails only that request, not its batch-mates.
func TestWriterIsolatesARefusedEventFromItsBatch(t *testing.T) {
	t.Parallel()
	pool, w := newWriter(t, postgres.WriterConfig{Workers: 1, MaxBatch: 100, Timeout: 10 * time.Second})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 41)
	record := func(at time.Time) {
		defer wg.Done()
		_, err := w.Record(ctx, newEvent(t, "acc_mix", "chat", at), nil)
		errs <- err
	}
	wg.Add(41)
	for range 20 {
		go record(time.Now())
	}
	go record(time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC)) // beyond PostgreSQL's timestamptz
	for range 20 {
		go record(time.Now())
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
		}
	}
	require.Equal(t, 1, failed)
	require.Equal(t, 40, count(t, pool, `SELECT count(*) FROM usage_events WHERE account_id = 'acc_mix'`))
}
