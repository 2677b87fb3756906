package events

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/rediskit"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
)

// spans records every span the tests end, through the global tracer provider the package uses.
var spans = tracetest.NewSpanRecorder()

func TestMain(m *testing.M) {
	otel.SetTextMapPropagator(propagation.TraceContext{})
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))
	os.Exit(m.Run())
}

// seenTable is the handlers' side effect: one row per handler run that committed.
var seenTable = pgkit.Source{Name: "seen", FS: fstest.MapFS{
	"001_seen.sql": {Data: []byte(`CREATE TABLE seen (event_id text NOT NULL, type text NOT NULL);`)},
}}

const waitFor = 30 * time.Second

func setup(t *testing.T) (*pgxpool.Pool, redis.UniversalClient, string) {
	t.Helper()
	pool := pgtest.New(t, "svc", Migrations, seenTable)
	rdb, prefix := redistest.New(t)
	return pool, rdb, strings.TrimSuffix(prefix, ":")
}

// record is a handler whose effect is a row in seen, written in the consumer's transaction,
// which its context carries.
func record(ctx context.Context, e Envelope) error {
	tx, ok := pgkit.TxFrom(ctx)
	if !ok {
		return errors.New("the handler's context carries no transaction")
	}
	_, err := tx.Exec(ctx, "INSERT INTO seen (event_id, type) VALUES ($1, $2)", e.ID, e.Type)
	return err
}

// newEvent returns an event of typ without data.
func newEvent(t *testing.T, typ string) Envelope {
	t.Helper()
	e, err := New(context.Background(), typ, "acc_1", nil)
	require.NoError(t, err)
	return e
}

// enqueue commits n events of typ, each in its own transaction, and returns their ids.
func enqueue(t *testing.T, pool *pgxpool.Pool, typ string, n int) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for i := range n {
		e, err := New(ctx, typ, "acc_1", map[string]int{"n": i})
		require.NoError(t, err)
		require.NoError(t, pgkit.InTx(ctx, pool, func(tx pgx.Tx) error { return Enqueue(ctx, tx, e) }))
		out = append(out, e.ID)
	}
	return out
}

// relayAll publishes one batch of pool's outbox to rdb under prefix.
func relayAll(t *testing.T, pool *pgxpool.Pool, rdb redis.UniversalClient, prefix string) {
	t.Helper()
	_, err := NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix}).PublishBatch(context.Background())
	require.NoError(t, err)
}

// publish enqueues n events of typ and relays them; it returns their ids and typ's stream.
func publish(t *testing.T, pool *pgxpool.Pool, rdb redis.UniversalClient, prefix, typ string, n int) (ids []string, stream string) {
	t.Helper()
	ids = enqueue(t, pool, typ, n)
	relayAll(t, pool, rdb, prefix)
	return ids, prefix + ":" + typ
}

func seenIDs(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), "SELECT event_id FROM seen ORDER BY event_id")
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return got
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// uniq names a consumer group for this run of a test, for tests that read the process-wide
// metrics (-count reruns a test in the same process).
func uniq(name, prefix string) string {
	return name + "-" + prefix[strings.LastIndex(prefix, ":")+1:]
}

func pending(t *testing.T, rdb redis.UniversalClient, stream, group string) int64 {
	t.Helper()
	p, err := rdb.XPending(context.Background(), stream, group).Result()
	require.NoError(t, err)
	return p.Count
}

// pollUntil runs c.Poll until done reports true.
func pollUntil(t *testing.T, c *Consumer, done func() bool) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		_, err := c.Poll(context.Background())
		require.NoError(ct, err)
		require.True(ct, done())
	}, waitFor, 5*time.Millisecond)
}

// testConsumer returns a consumer with test-sized timings.
func testConsumer(pool *pgxpool.Pool, rdb redis.UniversalClient, prefix, group string, handlers map[string]Handler) *Consumer {
	return NewConsumer(pool, rdb, ConsumerConfig{
		StreamPrefix: prefix, Group: group, Consumer: group + "-1",
		Block: 20 * time.Millisecond, ClaimIdle: 20 * time.Millisecond, MaxAttempts: 3,
	}, handlers)
}

// run starts fn in the background and returns a stop function that cancels it and waits.
func run(t *testing.T, fn func(context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		require.NoError(t, <-done)
	}
	t.Cleanup(stop)
	return stop
}

func TestRelayRestartLosesNothing(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	relayCfg := RelayConfig{StreamPrefix: prefix, PollInterval: 10 * time.Millisecond, BatchSize: 5}
	c := testConsumer(pool, rdb, prefix, "restart", map[string]Handler{"lead.written": record})
	run(t, c.Run)

	want := enqueue(t, pool, "lead.written", 60)
	stopRelay := run(t, NewRelay(pool, rdb, relayCfg).Run)
	require.Eventually(t, func() bool {
		return count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NOT NULL") > 0
	}, waitFor, 5*time.Millisecond)
	stopRelay()

	want = append(want, enqueue(t, pool, "lead.written", 40)...)
	run(t, NewRelay(pool, rdb, relayCfg).Run)

	require.Eventually(t, func() bool { return count(t, pool, "SELECT count(*) FROM seen") >= len(want) },
		waitFor, 10*time.Millisecond)
	require.ElementsMatch(t, want, seenIDs(t, pool), "every event exactly once")
	require.Zero(t, count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NULL"))
}

func TestRelayWakesOnNotify(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	pool := pgtest.Open(t, db, "notified", Migrations)
	rdb, prefix := redistest.New(t)
	stream := prefix + "lead.written"
	enqueue(t, pool, "lead.written", 1)
	// Polling is effectively off, so the second event can only be published through NOTIFY.
	run(t, NewRelay(pool, rdb, RelayConfig{StreamPrefix: strings.TrimSuffix(prefix, ":"), PollInterval: time.Hour, IdlePoll: time.Hour}).Run)

	require.Eventually(t, func() bool {
		listening := count(t, pool, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = $1 AND query = 'LISTEN '||$2`, db.Name, pgx.Identifier{notifyChannel("notified")}.Sanitize()) == 1
		return listening && rdb.XLen(context.Background(), stream).Val() == 1
	}, waitFor, 5*time.Millisecond)
	enqueue(t, pool, "lead.written", 1)
	require.Eventually(t, func() bool { return rdb.XLen(context.Background(), stream).Val() == 2 },
		waitFor, 5*time.Millisecond)
}

// A relay that listens, whose batches succeed and which holds no stream, looks for rows only every
// IdlePoll, not every PollInterval: an idle stack runs no transaction a poll in every process.
func TestAnIdleRelayThatListensDoesNotPoll(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	pool := pgtest.Open(t, db, "idle", Migrations)
	rdb, prefix := redistest.New(t)
	enqueue(t, pool, "lead.written", 1)
	run(t, NewRelay(pool, rdb, RelayConfig{StreamPrefix: strings.TrimSuffix(prefix, ":"),
		PollInterval: 5 * time.Millisecond, IdlePoll: time.Hour}).Run)
	require.Eventually(t, func() bool {
		listening := count(t, pool, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = $1 AND query = 'LISTEN '||$2`, db.Name, pgx.Identifier{notifyChannel("idle")}.Sanitize()) == 1
		return listening && rdb.XLen(context.Background(), prefix+"lead.written").Val() == 1
	}, waitFor, 5*time.Millisecond)

	// Polling every 5 ms would take the pool's connections about a hundred times in half a second.
	before := pool.Stat().AcquireCount()
	require.Never(t, func() bool { return pool.Stat().AcquireCount() > before+2 }, 500*time.Millisecond, 10*time.Millisecond,
		"an idle relay that listens polls")
	enqueue(t, pool, "lead.written", 1)
	require.Eventually(t, func() bool { return rdb.XLen(context.Background(), prefix+"lead.written").Val() == 2 },
		waitFor, 5*time.Millisecond, "a commit is still published at once")
}

// afterLingerWindow is a wait past a reader's first rate window. The window opens when the reader
// records its first batch, after the commit and (for the relay) a check of its streams, so a
// test that sees the batch handled and waits only lingerWindow can come back before the window
// has closed (CI's cluster shape: two batches where one was meant).
const afterLingerWindow = lingerWindow + 250*time.Millisecond

// Under load, after a partial batch the relay pauses for Linger: rows committed one by one during
// the pause go out in one batch (one transaction, so one published_at), not one batch per commit.
func TestRelayLingerGathersCommitsIntoOneBatch(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	published := func(ids []string) int {
		return count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NOT NULL AND id = ANY($1)", ids)
	}
	burst := enqueue(t, pool, "lead.written", 6) // a rate worth lingering for
	// A pause long enough that three commits fit in it on a loaded machine (-race, CI's parallel tests).
	run(t, NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix, PollInterval: time.Hour, IdlePoll: time.Hour, Linger: 5 * time.Second}).Run)
	require.Eventually(t, func() bool { return published(burst) == 6 }, waitFor, 5*time.Millisecond)
	time.Sleep(afterLingerWindow) // the relay measures the rate once a real-clock window has passed; nothing signals it
	first := enqueue(t, pool, "lead.written", 1)
	require.Eventually(t, func() bool { return published(first) == 1 }, waitFor, 5*time.Millisecond)
	later := enqueue(t, pool, "lead.written", 3) // three transactions, during the pause
	require.Eventually(t, func() bool { return published(later) == 3 }, waitFor, 5*time.Millisecond)
	require.Equal(t, 1, count(t, pool, "SELECT count(DISTINCT published_at) FROM outbox WHERE id = ANY($1)", later))
	require.EqualValues(t, 10, rdb.XLen(context.Background(), prefix+":lead.written").Val())
}

func TestRolledBackTxLeavesNoOutboxRow(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ctx := context.Background()
	e := newEvent(t, "lead.written")
	boom := errors.New("domain write failed")
	err := pgkit.InTx(ctx, pool, func(tx pgx.Tx) error {
		if err := Enqueue(ctx, tx, e); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)

	require.Zero(t, count(t, pool, "SELECT count(*) FROM outbox"))
	n, err := NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix}).PublishBatch(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Zero(t, rdb.Exists(ctx, prefix+":lead.written").Val())
}

func TestRelayLeavesRowsUnpublishedWhenRedisFails(t *testing.T) {
	t.Parallel()
	pool, _, prefix := setup(t)
	enqueue(t, pool, "lead.written", 3)
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = down.Close() })

	_, err := NewRelay(pool, down, RelayConfig{StreamPrefix: prefix}).PublishBatch(context.Background())
	require.Error(t, err)
	require.Equal(t, 3, count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NULL"))
}

func TestDuplicateMessageIsHandledOnce(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ctx := context.Background()
	e := newEvent(t, "lead.written")
	raw, err := json.Marshal(e)
	require.NoError(t, err)
	stream := prefix + ":lead.written"
	for range 2 {
		require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []any{"envelope", raw}}).Err())
	}

	group := uniq("dedupe", prefix)
	c := testConsumer(pool, rdb, prefix, group, map[string]Handler{"lead.written": record})
	pollUntil(t, c, func() bool {
		return testutil.ToFloat64(consumed.WithLabelValues(group, "lead.written", "duplicate")) == 1
	})
	require.Equal(t, []string{e.ID}, seenIDs(t, pool))
	require.Equal(t, 1.0, testutil.ToFloat64(consumed.WithLabelValues(group, "lead.written", "ok")))
	require.Zero(t, pending(t, rdb, stream, group), "the duplicate is acknowledged too")
}

func TestHandlerErrorIsRedeliveredUntilSuccess(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ids, stream := publish(t, pool, rdb, prefix, "usage.recorded", 1)

	var calls atomic.Int32
	flaky := func(ctx context.Context, e Envelope) error {
		if err := record(ctx, e); err != nil {
			return err
		}
		if calls.Add(1) < 3 {
			return errors.New("downstream unavailable") // the row above must roll back
		}
		return nil
	}
	group := uniq("flaky", prefix)
	c := testConsumer(pool, rdb, prefix, group, map[string]Handler{"usage.recorded": flaky})
	pollUntil(t, c, func() bool { return count(t, pool, "SELECT count(*) FROM seen") == 1 })

	require.Equal(t, ids, seenIDs(t, pool))
	require.EqualValues(t, 3, calls.Load())
	require.Equal(t, 2.0, testutil.ToFloat64(consumed.WithLabelValues(group, "usage.recorded", "error")))
	require.Zero(t, pending(t, rdb, stream, group))
}

func TestFailingMessageIsDeadLetteredAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ctx := context.Background()
	ids, stream := publish(t, pool, rdb, prefix, "usage.recorded", 1)
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []any{"envelope", "not json"}}).Err())

	var calls atomic.Int32
	broken := func(context.Context, Envelope) error { calls.Add(1); return errors.New("always fails") }
	c := testConsumer(pool, rdb, prefix, "broken", map[string]Handler{"usage.recorded": broken})
	dead := prefix + ":deadletter:broken"
	pollUntil(t, c, func() bool { return rdb.XLen(ctx, dead).Val() == 2 })

	require.EqualValues(t, 3, calls.Load(), "MaxAttempts handler runs, none for the malformed message")
	require.Zero(t, pending(t, rdb, stream, "broken"))
	entries, err := rdb.XRange(ctx, dead, "-", "+").Result()
	require.NoError(t, err)
	var parked Envelope
	require.Equal(t, "not json", entries[0].Values["envelope"])
	require.NoError(t, json.Unmarshal([]byte(entries[1].Values["envelope"].(string)), &parked))
	require.Equal(t, ids[0], parked.ID)
	require.Equal(t, "4", entries[1].Values["attempts"])
}

func TestDeadConsumersMessagesAreClaimed(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ctx := context.Background()
	want, stream := publish(t, pool, rdb, prefix, "lead.written", 3)

	// Another replica of the group reads everything and dies before acknowledging.
	require.NoError(t, rdb.XGroupCreateMkStream(ctx, stream, "claim", "0").Err())
	got, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "claim", Consumer: "dead", Streams: []string{stream, ">"}}).Result()
	require.NoError(t, err)
	require.Len(t, got[0].Messages, 3)

	c := testConsumer(pool, rdb, prefix, "claim", map[string]Handler{"lead.written": record})
	pollUntil(t, c, func() bool { return count(t, pool, "SELECT count(*) FROM seen") == 3 })
	require.ElementsMatch(t, want, seenIDs(t, pool))
	require.Zero(t, pending(t, rdb, stream, "claim"))
}

func TestEveryGroupGetsEveryEvent(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	producer := pgtest.Open(t, db, "producer", Migrations)
	rdb, p := redistest.New(t)
	prefix := strings.TrimSuffix(p, ":")
	want := append(enqueue(t, producer, "lead.written", 4), enqueue(t, producer, "inbound.contact_form", 3)...)
	relayAll(t, producer, rdb, prefix)

	for _, group := range []string{"analytics", "assistant"} {
		pool := pgtest.Open(t, db, group, Migrations, seenTable)
		c := testConsumer(pool, rdb, prefix, group, map[string]Handler{"lead.written": record, "inbound.contact_form": record})
		pollUntil(t, c, func() bool { return count(t, pool, "SELECT count(*) FROM seen") >= len(want) })
		require.ElementsMatch(t, want, seenIDs(t, pool), group)
	}
}

func TestTraceContextRoundTrips(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	state, err := trace.ParseTraceState("bizassist=t1")
	require.NoError(t, err)
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6},
		TraceFlags: trace.FlagsSampled, TraceState: state, Remote: true,
	})
	ctx, request := otel.Tracer("test").Start(trace.ContextWithRemoteSpanContext(context.Background(), remote), "request")
	e, err := New(ctx, "lead.written", "acc_1", nil)
	request.End()
	require.NoError(t, err)
	require.Equal(t, "bizassist=t1", e.TraceState)
	require.NoError(t, pgkit.InTx(ctx, pool, func(tx pgx.Tx) error { return Enqueue(ctx, tx, e) }))
	relayAll(t, pool, rdb, prefix)

	var inHandler trace.SpanContext
	capture := func(ctx context.Context, _ Envelope) error {
		inHandler = trace.SpanContextFromContext(ctx)
		return nil
	}
	c := testConsumer(pool, rdb, prefix, "traced", map[string]Handler{"lead.written": capture})
	pollUntil(t, c, func() bool { return inHandler.IsValid() })

	require.Equal(t, remote.TraceID(), inHandler.TraceID())
	require.Equal(t, "bizassist=t1", inHandler.TraceState().String())
	var consumerSpan sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		if s.SpanContext().SpanID() == inHandler.SpanID() {
			consumerSpan = s
		}
	}
	require.NotNil(t, consumerSpan, "the handler runs inside an ended consumer span")
	require.Equal(t, trace.SpanKindConsumer, consumerSpan.SpanKind())
	require.Equal(t, request.SpanContext().SpanID(), consumerSpan.Parent().SpanID(), "child of the producing request")
}

func TestConsumerRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]*Consumer{
		"no group":    NewConsumer(nil, nil, ConsumerConfig{}, map[string]Handler{"lead.written": record}),
		"no handlers": NewConsumer(nil, nil, ConsumerConfig{Group: "leads"}, nil),
		"nil handler": NewConsumer(nil, nil, ConsumerConfig{Group: "leads"}, map[string]Handler{"lead.written": nil}),
		"bad type":    NewConsumer(nil, nil, ConsumerConfig{Group: "leads"}, map[string]Handler{"Lead": record}),
	} {
		require.Error(t, c.Run(context.Background()), name)
	}
}

func TestHousekeepingDeletesOnlyExpiredRows(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO outbox (id, type, account_id, payload, published_at) VALUES
		('evt_old', 'lead.written', 'acc_1', '{}', now() - interval '25 hours'),
		('evt_recent', 'lead.written', 'acc_1', '{}', now() - interval '1 hour');
		INSERT INTO processed_events (consumer_group, event_id, processed_at) VALUES
		('keeper', 'evt_old', now() - interval '8 days'),
		('keeper', 'evt_recent', now() - interval '1 day'),
		('other', 'evt_old', now() - interval '8 days')`)
	require.NoError(t, err)

	run(t, NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix}).Run)
	run(t, testConsumer(pool, rdb, prefix, "keeper", map[string]Handler{"lead.written": record}).Run)
	require.Eventually(t, func() bool {
		return count(t, pool, "SELECT count(*) FROM outbox WHERE id = 'evt_old'") == 0 &&
			count(t, pool, "SELECT count(*) FROM processed_events WHERE consumer_group = 'keeper' AND event_id = 'evt_old'") == 0
	}, waitFor, 10*time.Millisecond)
	require.Equal(t, 1, count(t, pool, "SELECT count(*) FROM outbox WHERE id = 'evt_recent'"))
	require.Equal(t, 2, count(t, pool, "SELECT count(*) FROM processed_events"), "recent ids and other groups' ids stay")
}

// A read batch commits in one transaction (one commit for many events), and a failing handler
// in it costs only its own message: the batch rolls back and each message is handled alone.
func TestBatchCommitsOnceAndIsolatesAFailingHandler(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ids, stream := publish(t, pool, rdb, prefix, "lead.written", 8)
	poison := ids[5]

	var calls atomic.Int32
	handler := func(ctx context.Context, e Envelope) error {
		calls.Add(1)
		if e.ID == poison {
			return errors.New("cannot apply this one")
		}
		tx, _ := pgkit.TxFrom(ctx)
		_, err := tx.Exec(ctx, "INSERT INTO seen (event_id, type) VALUES ($1, txid_current()::text)", e.ID)
		return err
	}
	group := uniq("batch", prefix)
	c := testConsumer(pool, rdb, prefix, group, map[string]Handler{"lead.written": handler})
	c.cfg.ClaimIdle = time.Hour // the poison message stays pending for this test
	n, err := c.Poll(context.Background())
	require.NoError(t, err)
	require.Equal(t, 8, n)

	good := append(append([]string{}, ids[:5]...), ids[6:]...)
	require.ElementsMatch(t, good, seenIDs(t, pool), "every other event exactly once")
	require.EqualValues(t, 6+8, calls.Load(), "the failed batch ran six handlers, then each message ran alone")
	require.Equal(t, 7, count(t, pool, "SELECT count(DISTINCT type) FROM seen"), "alone after the failure: one transaction each")
	require.Equal(t, 7.0, testutil.ToFloat64(consumed.WithLabelValues(group, "lead.written", "ok")))
	require.Equal(t, 1.0, testutil.ToFloat64(consumed.WithLabelValues(group, "lead.written", "error")))
	require.EqualValues(t, 1, pending(t, rdb, stream, group), "only the failing message waits for redelivery")
	require.Zero(t, count(t, pool, "SELECT count(*) FROM processed_events WHERE event_id = $1", poison))

	// Without a failure, the whole batch is one transaction.
	more, _ := publish(t, pool, rdb, prefix, "lead.written", 6)
	_, err = c.Poll(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, count(t, pool, "SELECT count(DISTINCT type) FROM seen WHERE event_id = ANY($1)", more))
	require.Equal(t, 6, count(t, pool, "SELECT count(*) FROM seen WHERE event_id = ANY($1)", more))
}

// A batch counts as published only once MinReplicas replicas hold it: against a node without
// replicas the rows stay in the outbox; against the local cluster (one replica per master) the
// batch, spread over the masters, goes out.
func TestRelayWaitsForReplicas(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	types := []string{"lead.written", "usage.recorded", "account.created", "inbound.new_lead"}
	for _, typ := range types {
		enqueue(t, pool, typ, 2)
	}
	relay := NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix, MinReplicas: 1, ReplicaWait: 200 * time.Millisecond})
	n, err := relay.PublishBatch(context.Background())
	if !rediskit.IsCluster(rdb) {
		require.ErrorContains(t, err, "replicas acknowledged")
		require.Equal(t, 8, count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NULL"))
		return
	}
	require.NoError(t, err)
	require.Equal(t, 8, n)
	for _, typ := range types {
		l, err := rdb.XLen(context.Background(), prefix+":"+typ).Result()
		require.NoError(t, err)
		require.EqualValues(t, 2, l, typ)
	}
}

// A cluster refuses one XREADGROUP across slots, so a consumer reads a lane per slot there; a
// tagged prefix puts every stream in one slot, and a single node reads everything in one lane.
func TestLanesFollowHashSlots(t *testing.T) {
	t.Parallel()
	types := []string{"account.created", "inbound.new_lead", "lead.written", "usage.recorded"}
	single := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}})
	t.Cleanup(func() { _ = single.Close(); _ = cluster.Close() })

	require.Len(t, lanesOf(single, "bizassist", types), 1)
	lanes := lanesOf(cluster, "bizassist", types)
	require.Greater(t, len(lanes), 1)
	var all []string
	for _, l := range lanes {
		slot := rediskit.Slot(streamKey("bizassist", l.types[0]))
		for _, typ := range l.types {
			require.Equal(t, slot, rediskit.Slot(streamKey("bizassist", typ)), "one lane, one slot")
		}
		all = append(all, l.types...)
	}
	require.ElementsMatch(t, types, all)
	require.Len(t, lanesOf(cluster, "{bizassist}", types), 1)
}

// xautoclaims counts the XAUTOCLAIM commands a client sends.
type xautoclaims struct{ n atomic.Int64 }

func (h *xautoclaims) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *xautoclaims) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *xautoclaims) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "xautoclaim" {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

// A busy consumer reads on every poll but looks for idle messages only a few times per
// ClaimIdle: nothing becomes claimable sooner.
func TestClaimsAreLookedForAFewTimesPerClaimIdle(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	hook := &xautoclaims{}
	rdb.AddHook(hook)
	c := NewConsumer(pool, rdb, ConsumerConfig{
		StreamPrefix: prefix, Group: "claims", Consumer: "claims-1", Block: time.Millisecond, ClaimIdle: time.Hour,
	}, map[string]Handler{"lead.written": record, "account.created": record})
	for range 20 {
		_, err := c.Poll(context.Background())
		require.NoError(t, err)
	}
	require.Equal(t, int64(2), hook.n.Load(), "one look per type, on the first poll")
}

// Under load, after a batch smaller than BatchSize the lane pauses for Linger, so messages
// published during the pause are read together and handled in one transaction.
func TestLingerGathersMessagesIntoOneBatch(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	first := make(chan struct{}, 1)
	var burst []string
	handler := func(ctx context.Context, e Envelope) error {
		tx, _ := pgkit.TxFrom(ctx)
		_, err := tx.Exec(ctx, "INSERT INTO seen (event_id, type) VALUES ($1, txid_current()::text)", e.ID)
		if !slices.Contains(burst, e.ID) {
			select {
			case first <- struct{}{}:
			default:
			}
		}
		return err
	}
	c := testConsumer(pool, rdb, prefix, uniq("linger", prefix), map[string]Handler{"lead.written": handler})
	c.cfg.Linger = 2 * time.Second
	for _, l := range c.lanes {
		l.linger.linger = c.cfg.Linger
	}
	burst, _ = publish(t, pool, rdb, prefix, "lead.written", 6) // a rate worth lingering for
	run(t, c.Run)
	require.Eventually(t, func() bool { return count(t, pool, "SELECT count(*) FROM seen") == 6 }, waitFor, 5*time.Millisecond)
	time.Sleep(afterLingerWindow) // the lane measures the rate once a real-clock window has passed; nothing signals it
	publish(t, pool, rdb, prefix, "lead.written", 1)
	<-first // the lane now pauses for Linger
	later := make([]string, 0, 3)
	for range 3 { // each relayed on its own, as a busy producer would
		ids, _ := publish(t, pool, rdb, prefix, "lead.written", 1)
		later = append(later, ids...)
	}
	require.Eventually(t, func() bool {
		return count(t, pool, "SELECT count(*) FROM seen WHERE event_id = ANY($1)", later) == 3
	}, waitFor, 10*time.Millisecond)
	require.Equal(t, 1, count(t, pool, "SELECT count(DISTINCT type) FROM seen WHERE event_id = ANY($1)", later),
		"the three messages published during the pause share one transaction")
}

// A reader lingers only while messages come at two or more per pause, and never after a full
// batch.
func TestLingererPausesOnlyUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := lingerer{linger: 20 * time.Millisecond}
	require.False(t, l.after(ctx, 1, false), "no rate measured yet")

	l.since, l.seen = time.Now().Add(-lingerWindow), 10 // 10/s: 0.2 per pause
	require.False(t, l.after(ctx, 1, false), "too few messages to gather")

	l.since, l.seen = time.Now().Add(-lingerWindow), 500 // 500/s: 10 per pause
	require.True(t, l.after(ctx, 1, false))
	require.False(t, l.after(ctx, 100, true), "a full batch leaves more waiting: no pause")
	require.False(t, l.after(ctx, 0, false), "nothing read")
	require.False(t, (&lingerer{}).after(ctx, 1, false), "linger off")
}
