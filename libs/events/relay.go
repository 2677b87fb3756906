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
	if c.PollInterval < 0 || c.BatchSize < 0 || c.MaxLen < 0 || c.Retention < 0 || c.MinReplicas < 0 || c.ReplicaWait < 0 {
		return errors.New("EVENTS_RELAY_POLL_INTERVAL, EVENTS_RELAY_BATCH_SIZE, EVENTS_STREAM_MAXLEN, EVENTS_OUTBOX_RETENTION, EVENTS_RELAY_MIN_REPLICAS and EVENTS_RELAY_REPLICA_WAIT must not be negative")
	}
	return nil
}

const (
	sampleEvery   = 15 * time.Second // gauges are sampled, not kept exact
	cleanupEvery  = 10 * time.Minute // housekeeping deletes are cheap but need not be frequent
	cleanupLimit  = 10_000           // bounds one housekeeping delete
	batchDeadline = 30 * time.Second // a batch in flight finishes after shutdown, within this
)

// Relay publishes outbox rows of the pool's schema to Redis Streams. Several replicas may run at
// once: each batch locks its rows with SKIP LOCKED.
type Relay struct {
	pool *pgxpool.Pool
	rdb  redis.UniversalClient
	cfg  RelayConfig
}

// NewRelay returns a relay for the outbox in pool's schema.
func NewRelay(pool *pgxpool.Pool, rdb redis.UniversalClient, cfg RelayConfig) *Relay {
	return &Relay{pool: pool, rdb: rdb, cfg: cfg.withDefaults()}
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

	var lastSample, lastCleanup time.Time
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
	type row struct {
		ID, Type string
		Payload  []byte
	}
	var batch []row
	err := pgkit.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, type, payload::text FROM outbox
			WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`, r.cfg.BatchSize)
		if err != nil {
			return fmt.Errorf("select outbox: %w", err)
		}
		batch, err = pgx.CollectRows(rows, pgx.RowToStructByPos[row])
		if err != nil {
			return fmt.Errorf("select outbox: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		msgs := make([]message, len(batch))
		for i, b := range batch {
			msgs[i] = message{stream: streamKey(r.cfg.StreamPrefix, b.Type), envelope: b.Payload}
		}
		if err := r.xadd(ctx, msgs); err != nil {
			return err
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
	return len(batch), nil
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
