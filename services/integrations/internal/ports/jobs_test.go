package ports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform/platformtest"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/delivery"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/safehttp"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/internal/ports"
	"github.com/bizassist/bizassist/services/integrations/migrations"
)

var loopback = domain.TargetPolicy{AllowHTTP: true, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}

// fastRetries keeps tests quick: retries within milliseconds, a long window.
var fastRetries = domain.RetryPolicy{Base: 10 * time.Millisecond, Cap: 50 * time.Millisecond, GiveUpAfter: time.Hour, DisableAfter: time.Hour}

type fixture struct {
	t          *testing.T
	pool       *pgxpool.Pool
	subs       *postgres.Subscriptions
	deliveries *postgres.Deliveries
	queue      *delivery.Queue
	// dispatcher makes the first attempts of what is planned from its start on (startDispatcher);
	// without one, every planned delivery is a queued job.
	dispatcher app.FirstAttempts
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pool := pgtest.New(t, "integrations", migrations.Source, events.Migrations)
	require.NoError(t, delivery.Migrate(context.Background(), pool))
	queue, err := delivery.NewQueue(pool, 5*time.Millisecond)
	require.NoError(t, err)
	box, reads := sealboxtest.New(t), pgkit.PrimaryReads(pool)
	return &fixture{t: t, pool: pool, queue: queue,
		subs: postgres.NewSubscriptions(pool, box, reads), deliveries: postgres.NewDeliveries(pool, box, reads)}
}

// startWorkers runs a River client until it is stopped or the test ends.
func (f *fixture) startWorkers(policy domain.RetryPolicy) *river.Client[pgx.Tx] {
	f.t.Helper()
	return f.startWorkersWith(workerConfig{share: 4, attemptTimeout: 2 * time.Second, policy: policy})
}

func slots(t *testing.T, limit int) *app.AccountSlots {
	s, err := app.NewAccountSlots(limit)
	require.NoError(t, err)
	return s
}

// workerConfig is what the tests vary of the job workers: an account's share of them, the
// sender's timeout and the retry policy.
type workerConfig struct {
	share          int
	attemptTimeout time.Duration
	policy         domain.RetryPolicy
}

// deliverer is the use case the workers and the dispatcher run; the sender gives up after timeout.
func (f *fixture) deliverer(policy domain.RetryPolicy, timeout time.Duration) app.Deliver {
	return app.Deliver{
		Store: f.deliveries, Attempts: app.NewAttemptLog(f.deliveries, pgkit.Transactor{DB: f.pool}, f.queue),
		Sender: delivery.Sender{Client: safehttp.NewClient(loopback, timeout, 8), Now: time.Now},
		Policy: policy, Now: time.Now,
	}
}

// metrics counts in the service's Prometheus metrics, as the service does.
var metrics = delivery.Metrics{}

// handOver is the use case that gives a dispatcher's leftovers to jobs.
func (f *fixture) handOver() app.HandOver {
	return app.HandOver{Tx: pgkit.Transactor{DB: f.pool}, Claims: f.deliveries, Jobs: f.queue}
}

// startWorkersWith runs a River client on the deliveries queue, configured as the service
// configures it from w.
func (f *fixture) startWorkersWith(w workerConfig) *river.Client[pgx.Tx] {
	f.t.Helper()
	jobTimeout := app.JobTimeout(w.attemptTimeout)
	cfg := ports.JobConfig{Queue: delivery.QueueName, Concurrency: 4, JobTimeout: jobTimeout,
		Retries:      app.JobRetries{Policy: w.policy, RescueAfter: jobTimeout + app.RescueMargin, Now: time.Now},
		PollInterval: 20 * time.Millisecond, FetchCooldown: 5 * time.Millisecond}
	run := app.RunJob{Deliver: f.deliverer(w.policy, w.attemptTimeout), Slots: slots(f.t, w.share), Metrics: metrics}
	prune := app.Prune{Stores: []app.Pruner{f.deliveries}, Retention: 30 * 24 * time.Hour, Now: time.Now}
	c, err := ports.NewJobWorkers(f.pool, run, prune, cfg)
	require.NoError(f.t, err)
	require.NoError(f.t, c.Start(context.Background()))
	f.t.Cleanup(func() { stop(f.t, c) })
	return c
}

func stop(t *testing.T, c *river.Client[pgx.Tx]) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, c.Stop(ctx))
}

func (f *fixture) subscribe(url, event string) domain.Subscription {
	f.t.Helper()
	return f.subscribeFor("acc_1", url, event)
}

func (f *fixture) subscribeFor(accountID, url, event string) domain.Subscription {
	f.t.Helper()
	sub, err := domain.NewSubscription(accountID, event, url, loopback, time.Now())
	require.NoError(f.t, err)
	_, _, err = f.subs.CreateSubscription(context.Background(), sub)
	require.NoError(f.t, err)
	return sub
}

// planLeads plans n new_lead messages for acc_1 the way the lead.written consumer does.
func (f *fixture) planLeads(n int) {
	f.t.Helper()
	f.planLeadsFor("acc_1", n)
}

func (f *fixture) planLeadsFor(accountID string, n int) {
	f.t.Helper()
	forward := app.NewForwardLead(f.planner())
	for i := range n {
		err := pgkit.Transactor{DB: f.pool}.InTx(context.Background(), func(ctx context.Context) error {
			return forward.Handle(ctx, app.ForwardCommand[domain.LeadWritten]{AccountID: accountID, Event: domain.LeadWritten{
				LeadID: fmt.Sprintf("lead_%d", i), Name: "Jane", Email: "jane@example.com", Source: "test", At: time.Now(),
			}})
		})
		require.NoError(f.t, err)
	}
}

// planner plans as the service does: for the fixture's dispatcher, if it has one.
func (f *fixture) planner() app.PlanDeliveries {
	return app.PlanDeliveries{Tx: pgkit.Transactor{DB: f.pool, Join: true}, Subscribers: f.subs, Deliveries: f.deliveries,
		Jobs: f.queue, Dispatcher: f.dispatcher, AfterCommit: pgkit.AfterCommit, Now: time.Now}
}

func (f *fixture) count(sql string, args ...any) int {
	f.t.Helper()
	var n int
	require.NoError(f.t, f.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// awaitCount waits up to 30 s for the count sql selects to be want; why says what is awaited.
func (f *fixture) awaitCount(want int, why, sql string, args ...any) {
	f.t.Helper()
	require.Eventually(f.t, func() bool { return f.count(sql, args...) == want }, 30*time.Second, 20*time.Millisecond, why)
}

// receiver verifies each request with the Standard Webhooks reference library and records the
// webhook-ids it saw; answer decides the status for the n-th sighting of an id.
type receiver struct {
	t      *testing.T
	wh     *standardwebhooks.Webhook
	answer func(id string, sighting int) int
	mu     sync.Mutex
	seen   map[string]int
	bodies map[string]map[string]any
}

func newReceiver(t *testing.T, secret string, answer func(id string, sighting int) int) *receiver {
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	return &receiver{t: t, wh: wh, answer: answer, seen: map[string]int{}, bodies: map[string]map[string]any{}}
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(r.Body)
	if err != nil || rc.wh.Verify(payload, r.Header) != nil {
		rc.t.Errorf("delivery failed verification: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(payload, &body); err != nil {
		rc.t.Errorf("delivery body is not JSON: %v", err)
	}
	id := r.Header.Get("webhook-id")
	rc.mu.Lock()
	rc.seen[id]++
	n := rc.seen[id]
	rc.bodies[id] = body
	rc.mu.Unlock()
	w.WriteHeader(rc.answer(id, n))
}

func (rc *receiver) sightings() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make(map[string]int, len(rc.seen))
	for k, v := range rc.seen {
		out[k] = v
	}
	return out
}

func serveOn(t *testing.T, addr string, h http.Handler) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
}

func TestEveryEventReachesAReceiverThatWasDownAcrossAWorkerRestart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	addr := platformtest.ClosedAddr(t)
	sub := f.subscribe("http://"+addr+"/hook", domain.OutboundNewLead)
	const events = 5
	f.planLeads(events)

	first := f.startWorkers(fastRetries)
	f.awaitCount(events, "every delivery to fail twice while the receiver is down", `SELECT count(*) FROM deliveries WHERE attempts >= 2`)
	stop(t, first) // the process dies in the middle of retries

	// The receiver comes up, and fails each message once more before accepting it.
	rc := newReceiver(t, sub.Secret(), func(_ string, sighting int) int {
		if sighting == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	serveOn(t, addr, rc)
	f.startWorkers(fastRetries) // a new process on the same database

	f.awaitCount(events, "every delivery to succeed", `SELECT count(*) FROM deliveries WHERE status = 'delivered'`)
	seen := rc.sightings()
	require.Len(t, seen, events, "each event arrives under one webhook-id")
	rows, err := f.pool.Query(context.Background(), `SELECT id FROM deliveries`)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	for _, id := range ids {
		require.GreaterOrEqual(t, seen[id], 2, "the retry of %s carried the same webhook-id", id)
		require.Equal(t, "new_lead", rc.bodies[id]["event"])
	}
	require.Zero(t, f.count(`SELECT count(*) FROM subscriptions WHERE failing_since IS NOT NULL`), "a success clears the failure streak")
	require.GreaterOrEqual(t, f.count(`SELECT count(*) FROM delivery_attempts WHERE status_code IS NULL AND error <> ''`), 2*events,
		"connection failures are logged with their error")
}

func TestGoneRemovesTheSubscription(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	addr := platformtest.ClosedAddr(t)
	sub := f.subscribe("http://"+addr+"/hook", domain.OutboundNewLead)
	other := f.subscribe("http://"+addr+"/other", domain.OutboundHealthCritical)
	serveOn(t, addr, newReceiver(t, sub.Secret(), func(string, int) int { return http.StatusGone }))
	f.planLeads(1)
	f.startWorkers(fastRetries)
	f.awaitCount(0, "the subscription to be removed", `SELECT count(*) FROM subscriptions WHERE id = $1`, sub.ID())
	require.Equal(t, 1, f.count(`SELECT count(*) FROM subscriptions WHERE id = $1`, other.ID()), "only the 410ing subscription goes")
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	addr := platformtest.ClosedAddr(t)
	sub := f.subscribe("http://"+addr+"/hook", domain.OutboundNewLead)
	var mu sync.Mutex
	var throttledAt, retriedAt time.Time
	rc := newReceiver(t, sub.Secret(), func(_ string, sighting int) int {
		mu.Lock()
		defer mu.Unlock()
		if sighting == 1 {
			throttledAt = time.Now()
			return http.StatusTooManyRequests
		}
		retriedAt = time.Now()
		return http.StatusOK
	})
	serveOn(t, addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		rc.ServeHTTP(w, r)
	}))
	f.planLeads(1)
	f.startWorkers(fastRetries) // its own backoff would retry within 50 ms
	f.awaitCount(1, "the delivery to succeed", `SELECT count(*) FROM deliveries WHERE status = 'delivered'`)
	mu.Lock()
	defer mu.Unlock()
	require.GreaterOrEqual(t, retriedAt.Sub(throttledAt), 900*time.Millisecond, "the retry waited for Retry-After")
	require.Equal(t, 1, f.count(`SELECT count(*) FROM delivery_attempts WHERE status_code = 429`))
}

func TestAnEndpointFailingTooLongIsDisabled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	addr := platformtest.ClosedAddr(t)
	sub := f.subscribe("http://"+addr+"/hook", domain.OutboundNewLead)
	serveOn(t, addr, newReceiver(t, sub.Secret(), func(string, int) int { return http.StatusInternalServerError }))
	policy := fastRetries
	policy.DisableAfter = 100 * time.Millisecond
	f.planLeads(2)
	f.startWorkers(policy)
	f.awaitCount(1, "the subscription to be disabled", `SELECT count(*) FROM subscriptions WHERE id = $1 AND status = 'disabled'`, sub.ID())
	f.awaitCount(0, "no delivery to be left queued", `SELECT count(*) FROM deliveries WHERE status = 'pending'`)
	require.GreaterOrEqual(t, f.count(`SELECT count(*) FROM deliveries WHERE status = 'failed'`), 1, "the delivery that tipped it is given up")
	f.planLeads(1)
	require.Equal(t, 2, f.count(`SELECT count(*) FROM deliveries`), "a disabled subscription gets no new deliveries")
}

// One account's receiver that never answers must not hold the workers every account shares:
// with its deliveries first in the queue, every delivery of another account still arrives while
// the hanging ones are in flight.
func TestASlowReceiverSlowsOnlyItsOwnAccount(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	release := make(chan struct{})
	var hanging, answered atomic.Int32
	slowAddr := platformtest.ClosedAddr(t)
	serveOn(t, slowAddr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hanging.Add(1)
		select { // until the test ends
		case <-release:
		case <-r.Context().Done():
		}
		answered.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	f.subscribeFor("acc_slow", "http://"+slowAddr+"/hook", domain.OutboundNewLead)
	healthyAddr := platformtest.ClosedAddr(t)
	healthy := f.subscribeFor("acc_healthy", "http://"+healthyAddr+"/hook", domain.OutboundNewLead)
	rc := newReceiver(t, healthy.Secret(), func(string, int) int { return http.StatusNoContent })
	serveOn(t, healthyAddr, rc)

	const slowQueued, healthyQueued = 40, 10
	f.planLeadsFor("acc_slow", slowQueued) // first in line
	f.planLeadsFor("acc_healthy", healthyQueued)
	f.startWorkersWith(workerConfig{share: 2, attemptTimeout: 10 * time.Minute, policy: fastRetries})
	t.Cleanup(func() { close(release) }) // runs before the workers stop

	require.Eventually(t, func() bool { return len(rc.sightings()) == healthyQueued }, 30*time.Second, 20*time.Millisecond, "every delivery of the healthy account")
	require.Zero(t, answered.Load(), "the slow receiver is still holding its deliveries")
	require.LessOrEqual(t, int(hanging.Load()), 2, "the slow account never held more than its share of the workers")
}

// TestJobsOfAKilledWorkerAreRescuedSoonAfterTheJobTimeout: a worker killed with kill -9 leaves its
// jobs running; the next process rescues them shortly after the job timeout (River's default is
// an hour more) and retries them at once, not after the retry backoff.
func TestJobsOfAKilledWorkerAreRescuedSoonAfterTheJobTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	addr := platformtest.ClosedAddr(t)
	sub := f.subscribe("http://"+addr+"/hook", domain.OutboundNewLead)
	serveOn(t, addr, newReceiver(t, sub.Secret(), func(string, int) int { return http.StatusNoContent }))
	const events = 3
	f.planLeads(events)
	// What a killed worker leaves: its jobs running, attempted two minutes ago, longer than the
	// job timeout below (the 2 s attempt and 30 s to record it) and the rescue margin.
	_, err := f.pool.Exec(context.Background(), `UPDATE river_job SET state = 'running', attempt = 1,
		attempted_at = now() - interval '2 minutes', attempted_by = '{dead-worker}'`)
	require.NoError(t, err)

	f.startWorkersWith(workerConfig{share: 4, attemptTimeout: 2 * time.Second, policy: domain.DefaultRetryPolicy})
	require.Eventually(t, func() bool {
		return f.count(`SELECT count(*) FROM deliveries WHERE status = 'delivered'`) == events
	}, 15*time.Second, 50*time.Millisecond, "the rescued jobs to be delivered at once, not after River's hour or the 30 s backoff")
	require.Eventually(t, func() bool {
		return f.count(`SELECT count(*) FROM river_job WHERE state = 'running'`) == 0
	}, 5*time.Second, 50*time.Millisecond, "no job left running")
}
