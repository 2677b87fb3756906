package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/setting"
)

// RelayConfig tunes the relay; zero fields take the defaults shown, except Linger (0 does not
// linger; the default applies to a config read from the environment).
type RelayConfig struct {
	StreamPrefix string        `env:"EVENTS_STREAM_PREFIX" envDefault:"bizassist"`
	PollInterval time.Duration `env:"EVENTS_RELAY_POLL_INTERVAL" envDefault:"200ms"`
	// IdlePoll is how often a relay that is told of every commit (it listens, its last batch
	// succeeded, no stream is held) looks for rows anyway: a safety net, not the path, so an idle
	// stack does not run a transaction per PollInterval in every process.
	IdlePoll  time.Duration `env:"EVENTS_RELAY_IDLE_POLL" envDefault:"2s"`
	BatchSize int           `env:"EVENTS_RELAY_BATCH_SIZE" envDefault:"200"`
	// Linger is how long the relay pauses after publishing a batch smaller than BatchSize, so
	// that under load a batch carries the rows of several transactions (its own transaction, its
	// round trips to Redis) instead of waking for each commit; only while rows come at two or
	// more per Linger (lingerer). 0 turns it off.
	Linger time.Duration `env:"EVENTS_RELAY_LINGER" envDefault:"10ms"`
	// MaxLen caps each stream approximately (XADD MAXLEN ~), so Redis memory stays bounded.
	MaxLen int64 `env:"EVENTS_STREAM_MAXLEN" envDefault:"1000000"`
	// Retention is how long published rows stay in the outbox for inspection before deletion.
	Retention time.Duration `env:"EVENTS_OUTBOX_RETENTION" envDefault:"24h"`
	// MinReplicas is how many Redis replicas must hold a batch (WAIT) before its rows count as
	// published, so a master failing over loses no event the outbox let go of; 0 trusts the master.
	// ReplicaWait bounds the WAIT; keep it below REDIS_READ_TIMEOUT.
	MinReplicas int           `env:"EVENTS_RELAY_MIN_REPLICAS" envDefault:"0"`
	ReplicaWait time.Duration `env:"EVENTS_RELAY_REPLICA_WAIT" envDefault:"500ms"`
}

func (c RelayConfig) withDefaults() RelayConfig {
	if c.StreamPrefix == "" {
		c.StreamPrefix = "bizassist"
	}
	if c.PollInterval == 0 {
		c.PollInterval = 200 * time.Millisecond
	}
	if c.IdlePoll == 0 {
		c.IdlePoll = 2 * time.Second
	}
	if c.BatchSize == 0 {
		c.BatchSize = 200
	}
	if c.MaxLen == 0 {
		c.MaxLen = 1_000_000
	}
	if c.Retention == 0 {
		c.Retention = 24 * time.Hour
	}
	if c.ReplicaWait == 0 {
		c.ReplicaWait = 500 * time.Millisecond
	}
	return c
}

// Validate reports a config that cannot work.
func (c RelayConfig) Validate() error {
	c = c.withDefaults()
	if strings.ContainsAny(c.StreamPrefix, " \t\n") {
		return fmt.Errorf("EVENTS_STREAM_PREFIX %q must not contain whitespace", c.StreamPrefix)
	}
	return errors.Join(setting.NotNegative("EVENTS_RELAY_POLL_INTERVAL", c.PollInterval),
		setting.NotNegative("EVENTS_RELAY_IDLE_POLL", c.IdlePoll),
		setting.NotNegative("EVENTS_RELAY_BATCH_SIZE", c.BatchSize),
		setting.NotNegative("EVENTS_RELAY_LINGER", c.Linger),
		setting.NotNegative("EVENTS_STREAM_MAXLEN", c.MaxLen),
		setting.NotNegative("EVENTS_OUTBOX_RETENTION", c.Retention),
		setting.NotNegative("EVENTS_RELAY_MIN_REPLICAS", c.MinReplicas),
		setting.NotNegative("EVENTS_RELAY_REPLICA_WAIT", c.ReplicaWait))
}

const (
	sampleEvery   = 15 * time.Second // gauges are sampled, not kept exact
	checkEvery    = 2 * time.Second  // how soon an idle relay notices that Redis lost its streams
	cleanupEvery  = 10 * time.Minute // housekeeping deletes are cheap but need not be frequent
	cleanupLimit  = 10_000           // bounds one housekeeping delete
	batchDeadline = 30 * time.Second // a batch in flight finishes after shutdown, within this
)

// Relay publishes outbox rows of the pool's schema to Redis Streams. Several replicas may run at
// once: each batch locks its rows with SKIP LOCKED.
//
// Redis holds only what can be rebuilt: with every publish the relay sets a marker key next to
// the stream (<prefix>:relayed:<type>). A type this outbox published before whose marker is gone
// and whose stream is empty (Redis restarted without persistence, or was flushed), or whose
// rebuild a consumer asked for (<prefix>:rebuild:<type>: it found the stream deleted), is rebuilt
// by republishing the outbox rows of the type published within Retention. Consumers recreate
// their groups from the start of the stream and skip the events they recorded as processed, so
// the rebuild is exactly-once in effect. A marker missing from a stream that holds entries (one
// written before markers existed) is set without a rebuild.
type Relay struct {
	pool *pgxpool.Pool
	rdb  redis.UniversalClient
	cfg  RelayConfig

	linger    lingerer
	listening atomic.Bool // the relay is told of each commit to its outbox

	mu      sync.Mutex
	learned bool            // known holds the types of the outbox's published rows
	known   map[string]bool // event types this schema's outbox has published
	held    map[string]hold // types whose stream's master last failed, left out of batches a while
}

// hold keeps a type out of batches until until; backoff doubles with each failure in a row.
type hold struct {
	until   time.Time
	backoff time.Duration
}

// Holds of a type whose master failed: long enough that its rows do not crowd every batch, and
// retried often enough that its stream catches up soon after the master's replica returns.
const (
	firstHold = time.Second
	maxHold   = 30 * time.Second
)

// NewRelay returns a relay for the outbox in pool's schema.
func NewRelay(pool *pgxpool.Pool, rdb redis.UniversalClient, cfg RelayConfig) *Relay {
	cfg = cfg.withDefaults()
	return &Relay{pool: pool, rdb: rdb, cfg: cfg, linger: lingerer{linger: cfg.Linger}, known: map[string]bool{}, held: map[string]hold{}}
}

// markerKey is the key whose absence, with an empty stream, says the stream of typ lost what the
// relay had put in it.
func markerKey(prefix, typ string) string { return prefix + ":relayed:" + typ }

// rebuildKey is where a consumer asks for the stream of typ to be rebuilt.
func rebuildKey(prefix, typ string) string { return prefix + ":rebuild:" + typ }

// streamState is what Redis holds for one type, read in a pipeline before anything is written.
type streamState struct {
	typ                 string
	marker, length, ask *redis.IntCmd
}

// readState queues the reads of st's stream state in pipe.
func (r *Relay) readState(ctx context.Context, pipe redis.Pipeliner, st *streamState) {
	st.marker = pipe.Exists(ctx, markerKey(r.cfg.StreamPrefix, st.typ))
	st.length = pipe.XLen(ctx, streamKey(r.cfg.StreamPrefix, st.typ))
	st.ask = pipe.Exists(ctx, rebuildKey(r.cfg.StreamPrefix, st.typ))
}

// lost says whether the stream must be rebuilt: asked for, or its marker gone with its entries.
func (st *streamState) lost() bool {
	return st.ask.Val() > 0 || st.marker.Val() == 0 && st.length.Val() == 0
}

// learn loads the types the outbox has published, once, so a relay started after Redis lost its
// data knows which streams it had written.
func (r *Relay) learn(ctx context.Context) error {
	r.mu.Lock()
	learned := r.learned
	r.mu.Unlock()
	if learned {
		return nil
	}
	rows, err := r.pool.Query(ctx, "SELECT DISTINCT type FROM outbox WHERE published_at IS NOT NULL")
	if err != nil {
		return fmt.Errorf("published types: %w", err)
	}
	types, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("published types: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, typ := range types {
		r.known[typ] = true
	}
	r.learned = true
	return nil
}

// Run publishes until ctx is done, polling every PollInterval and waking early when Enqueue
// notifies. Failed batches are logged, counted and retried; Run returns nil on shutdown.
func (r *Relay) Run(ctx context.Context) error {
	if err := r.cfg.Validate(); err != nil {
		return err
	}
	var schema string
	if err := r.pool.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return fmt.Errorf("events relay: read schema: %w", err)
	}
	wake := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.listen(ctx, schema, wake) }()
	defer wg.Wait()

	var lastSample, lastCleanup, lastCheck time.Time
	for {
		// The batch runs detached from ctx so that shutdown does not cut it between XADD and the
		// commit, which would publish its rows twice.
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), batchDeadline)
		n, err := r.PublishBatch(bctx)
		if err != nil {
			slog.ErrorContext(ctx, "events relay: publish batch", "schema", schema, "err", err)
		}
		if time.Since(lastSample) >= sampleEvery {
			lastSample = time.Now()
			r.samplePending(bctx, schema)
		}
		if time.Since(lastCleanup) >= cleanupEvery {
			lastCleanup = time.Now()
			r.cleanup(bctx, schema)
		}
		if time.Since(lastCheck) >= checkEvery {
			lastCheck = time.Now()
			if err := r.CheckStreams(bctx); err != nil {
				slog.WarnContext(ctx, "events relay: check streams", "schema", schema, "err", err)
			}
		}
		cancel()

		if ctx.Err() != nil {
			return nil
		}
		if n == r.cfg.BatchSize {
			continue // more rows are likely waiting (a held stream's failure does not stop the others)
		}
		if err == nil && r.linger.after(ctx, n, false) {
			// The next batch takes every row committed during the pause: their wake-ups are spent.
			select {
			case <-wake:
			default:
			}
			continue
		}
		wait := r.cfg.PollInterval
		if err == nil && r.told() {
			wait = r.cfg.IdlePoll
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-time.After(wait):
		}
	}
}

// told says whether the relay may wait for a notification instead of polling: it listens, and no
// stream is held (a held type's rows are retried by polling; nothing notifies their master's
// return).
func (r *Relay) told() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listening.Load() && len(r.held) == 0
}

// PublishBatch publishes up to BatchSize unpublished rows, oldest first, and marks them published
// in the same transaction. If Redis fails the transaction rolls back and the rows stay unpublished.
// With MinReplicas set, a master that fails holds back only the rows of its own streams: the
// others are published (and counted in n), and the failed types sit out the next batches for a
// hold that doubles while their master keeps failing; the error then names them.
func (r *Relay) PublishBatch(ctx context.Context) (int, error) {
	if err := r.learn(ctx); err != nil {
		relayErrors.Inc()
		return 0, fmt.Errorf("events relay: %w", err)
	}
	var (
		batch []outboxRow
		lost  []string         // types of the batch whose stream was lost
		sick  map[string]error // types of the batch whose master failed
	)
	// The rows are locked in the round trip that begins the transaction.
	sel := &pgx.Batch{}
	sel.Queue(`SELECT id, type, payload::text FROM outbox
		WHERE published_at IS NULL AND NOT (type = ANY($2)) ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
		r.cfg.BatchSize, r.heldTypes(time.Now()))
	read := func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return fmt.Errorf("select outbox: %w", err)
		}
		batch, err = pgx.CollectRows(rows, pgx.RowToStructByPos[outboxRow])
		if err != nil {
			return fmt.Errorf("select outbox: %w", err)
		}
		return nil
	}
	err := pgkit.InTxWith(ctx, r.pool, sel, read, func(tx pgx.Tx) error {
		if len(batch) == 0 {
			return nil
		}
		// Each type's state is read before its stream is written, and its marker set after.
		states := map[string]*streamState{}
		msgs := make([]message, len(batch))
		for i, b := range batch {
			msgs[i] = message{stream: streamKey(r.cfg.StreamPrefix, b.Type), envelope: b.Payload}
			if states[b.Type] == nil {
				states[b.Type] = &streamState{typ: b.Type}
			}
		}
		before := func(pipe redis.Pipeliner) {
			for _, st := range states {
				r.readState(ctx, pipe, st)
			}
		}
		after := func(pipe redis.Pipeliner, sickStreams map[string]error) {
			for typ := range states {
				if sickStreams[streamKey(r.cfg.StreamPrefix, typ)] == nil {
					pipe.Set(ctx, markerKey(r.cfg.StreamPrefix, typ), 1, 0)
				}
			}
		}
		sickStreams, err := r.xadd(ctx, msgs, before, after)
		if err != nil {
			return err
		}
		sick = map[string]error{}
		for typ, st := range states {
			if err := sickStreams[streamKey(r.cfg.StreamPrefix, typ)]; err != nil {
				sick[typ] = err
			} else if st.lost() {
				lost = append(lost, typ)
			}
		}
		batch = slices.DeleteFunc(batch, func(b outboxRow) bool { return sick[b.Type] != nil })
		eventIDs := make([]string, len(batch))
		for i, b := range batch {
			eventIDs[i] = b.ID
		}
		if _, err := tx.Exec(ctx, "UPDATE outbox SET published_at = now() WHERE id = ANY($1)", eventIDs); err != nil {
			return fmt.Errorf("mark published: %w", err)
		}
		return nil
	})
	if err != nil {
		relayErrors.Inc()
		return 0, fmt.Errorf("events relay: %w", err)
	}
	for _, b := range batch {
		published.WithLabelValues(b.Type).Inc()
	}
	heldErr := r.updateHolds(batch, sick, time.Now())
	// A type first published now had nothing to lose (a consumer may have asked before it existed).
	r.mu.Lock()
	var rebuild, fresh []string
	for _, typ := range lost {
		if r.known[typ] {
			rebuild = append(rebuild, typ)
		} else {
			fresh = append(fresh, typ)
		}
	}
	for _, b := range batch {
		r.known[b.Type] = true
	}
	r.mu.Unlock()
	if len(fresh) > 0 {
		pipe := r.rdb.Pipeline() // a DEL per key: on a cluster the keys may live in different slots
		for _, typ := range fresh {
			pipe.Del(ctx, rebuildKey(r.cfg.StreamPrefix, typ))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return len(batch), fmt.Errorf("events relay: %w", err)
		}
	}
	if err := r.rebuild(ctx, rebuild); err != nil {
		return len(batch), errors.Join(heldErr, err)
	}
	return len(batch), heldErr
}

// heldTypes returns the types whose hold has not ended at now.
func (r *Relay) heldTypes(now time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	types := []string{} // not nil: type = ANY(NULL) would leave every row out
	for typ, h := range r.held {
		if now.Before(h.until) {
			types = append(types, typ)
		}
	}
	return types
}

// updateHolds ends the hold of each type published and holds (longer, if already held) each
// sick type, and returns an error naming the sick ones.
func (r *Relay) updateHolds(published []outboxRow, sick map[string]error, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range published {
		delete(r.held, b.Type)
	}
	if len(sick) == 0 {
		return nil
	}
	relayErrors.Inc()
	errs := make([]error, 0, len(sick))
	for typ, err := range sick {
		backoff := min(max(2*r.held[typ].backoff, firstHold), maxHold)
		r.held[typ] = hold{until: now.Add(backoff), backoff: backoff}
		errs = append(errs, fmt.Errorf("%s held back for %s: %w", typ, backoff, err))
	}
	return fmt.Errorf("events relay: %w", errors.Join(errs...))
}

// outboxRow is one row a batch publishes.
type outboxRow struct {
	ID, Type string
	Payload  []byte
}

// CheckStreams rebuilds the streams of the types this outbox has published that Redis lost or a
// consumer asked to rebuild. Run calls it every few seconds, so streams lost while no event is
// written come back too.
func (r *Relay) CheckStreams(ctx context.Context) error {
	if err := r.learn(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	types := make([]string, 0, len(r.known))
	for typ := range r.known {
		types = append(types, typ)
	}
	r.mu.Unlock()
	if len(types) == 0 {
		return nil
	}
	pipe := r.rdb.Pipeline()
	states := make([]*streamState, len(types))
	for i, typ := range types {
		states[i] = &streamState{typ: typ}
		r.readState(ctx, pipe, states[i])
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("read stream markers: %w", err)
	}
	var lost, unmarked []string
	for _, st := range states {
		switch {
		case st.lost():
			lost = append(lost, st.typ)
		case st.marker.Val() == 0:
			unmarked = append(unmarked, st.typ)
		}
	}
	for _, typ := range unmarked { // written before markers existed: whole, adopted as it is
		if err := r.rdb.SetNX(ctx, markerKey(r.cfg.StreamPrefix, typ), 1, 0).Err(); err != nil {
			return fmt.Errorf("mark stream %s: %w", typ, err)
		}
	}
	return r.rebuild(ctx, lost)
}

// rebuild marks the rows of types published within Retention unpublished, so the relay publishes
// them again, sets the markers and clears the requests: the streams are whole again once the
// backlog drains.
func (r *Relay) rebuild(ctx context.Context, types []string) error {
	if len(types) == 0 {
		return nil
	}
	tag, err := r.pool.Exec(ctx, `UPDATE outbox SET published_at = NULL
		WHERE type = ANY($1) AND published_at > now() - make_interval(secs => $2)`, types, r.cfg.Retention.Seconds())
	if err != nil {
		return fmt.Errorf("rebuild streams %v: %w", types, err)
	}
	pipe := r.rdb.Pipeline()
	for _, typ := range types {
		pipe.Set(ctx, markerKey(r.cfg.StreamPrefix, typ), 1, 0)
		pipe.Del(ctx, rebuildKey(r.cfg.StreamPrefix, typ))
		streamsRebuilt.WithLabelValues(typ).Inc()
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("rebuild streams %v: set markers: %w", types, err)
	}
	// Wake every replica's relay to republish now, as a commit does, not at its next IdlePoll.
	if _, err := r.pool.Exec(ctx, "SELECT pg_notify($1 || current_schema(), '')", notifyChannel("")); err != nil {
		slog.WarnContext(ctx, "events relay: notify the rebuild; the relays republish at their next poll", "err", err)
	}
	slog.WarnContext(ctx, "events relay: Redis lost streams; republishing them from the outbox",
		"types", types, "rows", tag.RowsAffected(), "window", r.cfg.Retention.String())
	return nil
}

// listen turns outbox notifications for schema into wake-ups. While it cannot listen, the relay
// polls every PollInterval; a lost connection wakes the relay, which may be waiting IdlePoll.
func (r *Relay) listen(ctx context.Context, schema string, wake chan<- struct{}) {
	for ctx.Err() == nil {
		err := r.waitNotifications(ctx, schema, wake)
		r.listening.Store(false)
		if ctx.Err() != nil {
			return
		}
		select {
		case wake <- struct{}{}:
		default:
		}
		slog.WarnContext(ctx, "events relay: listen failed; polling only until it reconnects", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}

func (r *Relay) waitNotifications(ctx context.Context, schema string, wake chan<- struct{}) error {
	pc, err := r.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A listening connection must not go back to the pool, so it is taken out and closed here.
	conn := pc.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{notifyChannel(schema)}.Sanitize()); err != nil {
		return err
	}
	r.listening.Store(true)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

func (r *Relay) samplePending(ctx context.Context, schema string) {
	var n int64
	if err := r.pool.QueryRow(ctx, "SELECT count(*) FROM outbox WHERE published_at IS NULL").Scan(&n); err != nil {
		slog.WarnContext(ctx, "events relay: count pending", "schema", schema, "err", err)
		return
	}
	outboxPending.WithLabelValues(schema).Set(float64(n))
}

func (r *Relay) cleanup(ctx context.Context, schema string) {
	_, err := r.pool.Exec(ctx, `DELETE FROM outbox WHERE id IN (
		SELECT id FROM outbox WHERE published_at < now() - make_interval(secs => $1) LIMIT $2)`, r.cfg.Retention.Seconds(), cleanupLimit)
	if err != nil {
		slog.WarnContext(ctx, "events relay: delete published rows", "schema", schema, "err", err)
	}
}
