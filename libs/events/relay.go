package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/bizassist/bizassist/libs/pgkit"
)

// RelayConfig tunes the relay; zero fields take the defaults shown.
type RelayConfig struct {
	StreamPrefix string        `env:"EVENTS_STREAM_PREFIX" envDefault:"bizassist"`
	PollInterval time.Duration `env:"EVENTS_RELAY_POLL_INTERVAL" envDefault:"200ms"`
	BatchSize    int           `env:"EVENTS_RELAY_BATCH_SIZE" envDefault:"200"`
	// MaxLen caps each stream approximately (XADD MAXLEN ~), so Redis memory stays bounded.
	MaxLen int64 `env:"EVENTS_STREAM_MAXLEN" envDefault:"1000000"`
	// Retention is how long published rows stay in the outbox for inspection before deletion.
	Retention time.Duration `env:"EVENTS_OUTBOX_RETENTION" envDefault:"24h"`
}

func (c RelayConfig) withDefaults() RelayConfig {
	if c.StreamPrefix == "" {
		c.StreamPrefix = "bizassist"
	}
	if c.PollInterval == 0 {
		c.PollInterval = 200 * time.Millisecond
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
	return c
}

// Validate reports a config that cannot work.
func (c RelayConfig) Validate() error {
	c = c.withDefaults()
	if strings.ContainsAny(c.StreamPrefix, " \t\n") {
		return fmt.Errorf("EVENTS_STREAM_PREFIX %q must not contain whitespace", c.StreamPrefix)
	}
	if c.PollInterval < 0 || c.BatchSize < 0 || c.MaxLen < 0 || c.Retention < 0 {
		return errors.New("EVENTS_RELAY_POLL_INTERVAL, EVENTS_RELAY_BATCH_SIZE, EVENTS_STREAM_MAXLEN and EVENTS_OUTBOX_RETENTION must not be negative")
	}
	return nil
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
// the stream (<prefix>:relayed:<type>), and a stream whose marker is gone (Redis restarted
// without persistence, flushed, or a consumer found the stream deleted) is rebuilt by
// republishing the outbox rows of its type published within Retention. Consumers recreate their
// groups from the start of the stream and skip the events they recorded as processed, so the
// rebuild is exactly-once in effect.
type Relay struct {
	pool *pgxpool.Pool
	rdb  redis.UniversalClient
	cfg  RelayConfig

	mu    sync.Mutex
	known map[string]bool // event types this schema's outbox has published
}

// NewRelay returns a relay for the outbox in pool's schema.
func NewRelay(pool *pgxpool.Pool, rdb redis.UniversalClient, cfg RelayConfig) *Relay {
	return &Relay{pool: pool, rdb: rdb, cfg: cfg.withDefaults(), known: map[string]bool{}}
}

// markerKey is the key whose absence says the stream of typ lost what the relay had put in it.
func markerKey(prefix, typ string) string { return prefix + ":relayed:" + typ }

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
		if err == nil && n == r.cfg.BatchSize {
			continue // more rows are likely waiting
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-time.After(r.cfg.PollInterval):
		}
	}
}

// PublishBatch publishes up to BatchSize unpublished rows, oldest first, and marks them published
// in the same transaction. If Redis fails the transaction rolls back and the rows stay unpublished.
func (r *Relay) PublishBatch(ctx context.Context) (int, error) {
	var (
		batch []outboxRow
		lost  []string // types of the batch whose marker was gone
	)
	err := pgkit.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, type, payload::text FROM outbox
			WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`, r.cfg.BatchSize)
		if err != nil {
			return fmt.Errorf("select outbox: %w", err)
		}
		batch, err = pgx.CollectRows(rows, pgx.RowToStructByPos[outboxRow])
		if err != nil {
			return fmt.Errorf("select outbox: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		// Each type's marker is read before its stream is written and set after: a marker found
		// missing for a type published before means the stream lost those events.
		pipe := r.rdb.Pipeline()
		markers := map[string]*redis.IntCmd{}
		for _, b := range batch {
			if markers[b.Type] == nil {
				markers[b.Type] = pipe.Exists(ctx, markerKey(r.cfg.StreamPrefix, b.Type))
			}
		}
		for _, b := range batch {
			pipe.XAdd(ctx, &redis.XAddArgs{
				Stream: streamKey(r.cfg.StreamPrefix, b.Type),
				MaxLen: r.cfg.MaxLen,
				Approx: true,
				Values: []any{"envelope", b.Payload},
			})
		}
		for typ := range markers {
			pipe.Set(ctx, markerKey(r.cfg.StreamPrefix, typ), 1, 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("xadd: %w", err)
		}
		for typ, exists := range markers {
			if exists.Val() == 0 {
				lost = append(lost, typ)
			}
		}
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
	// A type first published now had no marker to lose; one published before had.
	r.mu.Lock()
	var rebuild []string
	for _, typ := range lost {
		if r.known[typ] {
			rebuild = append(rebuild, typ)
		}
	}
	for _, b := range batch {
		r.known[b.Type] = true
	}
	r.mu.Unlock()
	if err := r.rebuild(ctx, rebuild); err != nil {
		return len(batch), err
	}
	return len(batch), nil
}

// outboxRow is one row a batch publishes.
type outboxRow struct {
	ID, Type string
	Payload  []byte
}

// CheckStreams rebuilds the streams of the types this outbox has published whose markers are
// gone. Run calls it every few seconds, so streams lost while no event is written come back too;
// the first call learns the types from the outbox, so a relay started after Redis lost its data
// rebuilds as well.
func (r *Relay) CheckStreams(ctx context.Context) error {
	r.mu.Lock()
	if len(r.known) == 0 {
		r.mu.Unlock()
		rows, err := r.pool.Query(ctx, "SELECT DISTINCT type FROM outbox WHERE published_at IS NOT NULL")
		if err != nil {
			return fmt.Errorf("published types: %w", err)
		}
		types, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("published types: %w", err)
		}
		r.mu.Lock()
		for _, typ := range types {
			r.known[typ] = true
		}
	}
	types := make([]string, 0, len(r.known))
	for typ := range r.known {
		types = append(types, typ)
	}
	r.mu.Unlock()
	if len(types) == 0 {
		return nil
	}
	pipe := r.rdb.Pipeline()
	exists := make([]*redis.IntCmd, len(types))
	for i, typ := range types {
		exists[i] = pipe.Exists(ctx, markerKey(r.cfg.StreamPrefix, typ))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("read stream markers: %w", err)
	}
	var lost []string
	for i, typ := range types {
		if exists[i].Val() == 0 {
			lost = append(lost, typ)
		}
	}
	return r.rebuild(ctx, lost)
}

// rebuild marks the rows of types published within Retention unpublished, so the relay publishes
// them again, and sets the markers: the streams are whole again once the backlog drains.
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
		streamsRebuilt.WithLabelValues(typ).Inc()
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("rebuild streams %v: set markers: %w", types, err)
	}
	slog.WarnContext(ctx, "events relay: Redis lost streams; republishing them from the outbox",
		"types", types, "rows", tag.RowsAffected(), "window", r.cfg.Retention.String())
	return nil
}

// listen turns outbox notifications for schema into wake-ups. It is an optimisation only: when it
// cannot listen, the relay still polls.
func (r *Relay) listen(ctx context.Context, schema string, wake chan<- struct{}) {
	for ctx.Err() == nil {
		err := r.waitNotifications(ctx, schema, wake)
		if ctx.Err() != nil {
			return
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
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if n.Payload != schema {
			continue // another service's outbox in the same database
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
