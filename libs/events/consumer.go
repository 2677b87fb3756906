package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/rediskit"
	"github.com/bizassist/bizassist/libs/setting"
)

// Handler applies one event. It runs inside the transaction that also records the event as
// processed, which ctx carries (pgkit.WithTx): code using pgkit.InTx or pgkit.Q, and the Outbox,
// joins it, so the handler's writes and the record commit together. The transaction holds the
// other messages of its read batch too; returning an error rolls the batch back, the others are
// then handled again one by one, and this message is left for redelivery.
type Handler func(ctx context.Context, e Envelope) error

// Typed returns a Handler that decodes the envelope's data into a T (the producer's contract
// type) and calls fn with it; data that does not decode fails the handler.
func Typed[T any](fn func(ctx context.Context, e Envelope, data T) error) Handler {
	return func(ctx context.Context, e Envelope) error {
		var data T
		if err := e.Decode(&data); err != nil {
			return err
		}
		return fn(ctx, e, data)
	}
}

// ConsumerConfig tunes a consumer; zero fields take the defaults shown, except Group and Linger
// (0 does not linger; the default applies to a config read from the environment).
type ConsumerConfig struct {
	StreamPrefix string `env:"EVENTS_STREAM_PREFIX" envDefault:"bizassist"`
	// Group is the consuming service's name; every replica of a service shares it.
	Group string
	// Consumer names this replica within the group; default hostname-pid.
	Consumer string        `env:"EVENTS_CONSUMER_NAME"`
	Block    time.Duration `env:"EVENTS_CONSUMER_BLOCK" envDefault:"2s"`
	// BatchSize bounds one read, which is also one transaction (handleBatch).
	BatchSize int64 `env:"EVENTS_CONSUMER_BATCH_SIZE" envDefault:"100"`
	// Linger is how long a lane waits after a batch smaller than BatchSize before it reads again,
	// so that under load messages arrive in fewer, larger batches (a read, a transaction and an
	// acknowledgement each). It lingers only while messages arrive at two or more per Linger
	// (lingerer); below that, and for a message that arrives while the lane waits on its
	// blocking read, a message is handled at once. 0 turns it off.
	Linger time.Duration `env:"EVENTS_CONSUMER_LINGER" envDefault:"10ms"`
	// ClaimIdle is how long a message may stay unacknowledged before any replica claims it again
	// (its consumer died, or its handler failed); it is also the backoff between attempts.
	ClaimIdle time.Duration `env:"EVENTS_CONSUMER_CLAIM_IDLE" envDefault:"30s"`
	// HandlerTimeout bounds one batch's transaction; it runs to completion even during shutdown.
	HandlerTimeout time.Duration `env:"EVENTS_CONSUMER_HANDLER_TIMEOUT" envDefault:"30s"`
	// MaxAttempts deliveries fail before a message moves to <prefix>:deadletter:<group>.
	MaxAttempts int64 `env:"EVENTS_CONSUMER_MAX_ATTEMPTS" envDefault:"10"`
	// Retention is how long processed event ids are kept for duplicate detection.
	Retention time.Duration `env:"EVENTS_PROCESSED_RETENTION" envDefault:"168h"`
}

func (c ConsumerConfig) withDefaults() ConsumerConfig {
	if c.StreamPrefix == "" {
		c.StreamPrefix = "bizassist"
	}
	if c.Consumer == "" {
		host, err := os.Hostname()
		if err != nil {
			host = "consumer"
		}
		c.Consumer = host + "-" + strconv.Itoa(os.Getpid())
	}
	if c.Block == 0 {
		c.Block = 2 * time.Second
	}
	if c.BatchSize == 0 {
		c.BatchSize = 100
	}
	if c.ClaimIdle == 0 {
		c.ClaimIdle = 30 * time.Second
	}
	if c.HandlerTimeout == 0 {
		c.HandlerTimeout = 30 * time.Second
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 10
	}
	if c.Retention == 0 {
		c.Retention = 7 * 24 * time.Hour
	}
	return c
}

var groupName = regexp.MustCompile(`^[a-z0-9_-]+$`)

// Validate reports a config that cannot work.
func (c ConsumerConfig) Validate() error {
	c = c.withDefaults()
	if !groupName.MatchString(c.Group) {
		return fmt.Errorf("consumer group %q must be the consuming service's name (lower-case, digits, _ or -)", c.Group)
	}
	if strings.ContainsAny(c.StreamPrefix, " \t\n") {
		return fmt.Errorf("EVENTS_STREAM_PREFIX %q must not contain whitespace", c.StreamPrefix)
	}
	// A negative Block would make Run spin on non-blocking reads.
	return errors.Join(setting.NotNegative("EVENTS_CONSUMER_BLOCK", c.Block),
		setting.NotNegative("EVENTS_CONSUMER_BATCH_SIZE", c.BatchSize),
		setting.NotNegative("EVENTS_CONSUMER_LINGER", c.Linger),
		setting.NotNegative("EVENTS_CONSUMER_CLAIM_IDLE", c.ClaimIdle),
		setting.NotNegative("EVENTS_CONSUMER_HANDLER_TIMEOUT", c.HandlerTimeout),
		setting.NotNegative("EVENTS_CONSUMER_MAX_ATTEMPTS", c.MaxAttempts),
		setting.NotNegative("EVENTS_PROCESSED_RETENTION", c.Retention))
}

var tracer = otel.Tracer("github.com/bizassist/bizassist/libs/events")

// Consumer reads the streams of its handlers' event types as one consumer group.
type Consumer struct {
	pool     *pgxpool.Pool
	rdb      redis.UniversalClient
	cfg      ConsumerConfig
	handlers map[string]Handler
	types    []string
	lanes    []*lane
	invalid  error
}

// lane is a set of streams one XREADGROUP can read: all of them on a single node, the streams of
// one hash slot on a Redis Cluster, which refuses a read across slots (CROSSSLOT).
type lane struct {
	types     []string
	ready     bool      // consumer groups exist
	claimedAt time.Time // the last look for idle messages that found no more than it took
	linger    lingerer
}

// claimLooks is how many times per ClaimIdle a lane looks for idle messages to claim: a message
// becomes claimable only after ClaimIdle, so looking on every read (one XAUTOCLAIM per type, most
// of a busy consumer's Redis commands) would only find the same nothing sooner.
const claimLooks = 4

// lanesOf groups types by the hash slot of their stream when rdb is a cluster.
func lanesOf(rdb redis.UniversalClient, prefix string, types []string) []*lane {
	if !rediskit.IsCluster(rdb) {
		return []*lane{{types: types}}
	}
	bySlot := map[int]*lane{}
	var lanes []*lane
	for _, typ := range types {
		slot := rediskit.Slot(streamKey(prefix, typ))
		if bySlot[slot] == nil {
			bySlot[slot] = &lane{}
			lanes = append(lanes, bySlot[slot])
		}
		bySlot[slot].types = append(bySlot[slot].types, typ)
	}
	return lanes
}

// NewConsumer returns a consumer that runs handlers[type] for each event of that type. An invalid
// config or handler set is reported by Run and Poll.
func NewConsumer(pool *pgxpool.Pool, rdb redis.UniversalClient, cfg ConsumerConfig, handlers map[string]Handler) *Consumer {
	c := &Consumer{pool: pool, rdb: rdb, cfg: cfg.withDefaults(), handlers: handlers}
	c.invalid = c.cfg.Validate()
	for typ, h := range handlers {
		if !eventType.MatchString(typ) || h == nil {
			c.invalid = errors.Join(c.invalid, fmt.Errorf("handler for %q: need a valid event type and a non-nil handler", typ))
		}
		c.types = append(c.types, typ)
	}
	if len(handlers) == 0 {
		c.invalid = errors.Join(c.invalid, errors.New("consumer has no handlers"))
	}
	sort.Strings(c.types)
	c.lanes = lanesOf(rdb, c.cfg.StreamPrefix, c.types)
	for _, l := range c.lanes {
		l.linger.linger = c.cfg.Linger
	}
	return c
}

// Run consumes until ctx is done and returns nil then. Redis or database failures are logged and
// retried. Each lane is read by its own loop, so a blocking read on one slot never delays another.
// Shutdown waits for the messages in hand and for the blocking reads (up to Block).
func (c *Consumer) Run(ctx context.Context) error {
	if c.invalid != nil {
		return fmt.Errorf("events consumer: %w", c.invalid)
	}
	var wg sync.WaitGroup
	for _, l := range c.lanes {
		wg.Add(1)
		go func() { defer wg.Done(); c.runLane(ctx, l) }()
	}
	c.housekeep(ctx)
	wg.Wait()
	return nil
}

func (c *Consumer) runLane(ctx context.Context, l *lane) {
	for ctx.Err() == nil {
		if _, err := c.pollLane(ctx, l); err != nil && ctx.Err() == nil {
			slog.ErrorContext(ctx, "events consumer: poll", "group", c.cfg.Group, "types", l.types, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// housekeep samples the lag and deletes old processed ids until ctx is done. The first sample
// waits a period, by when the lanes have created their groups.
func (c *Consumer) housekeep(ctx context.Context) {
	c.cleanup(ctx)
	sample, cleanup := time.NewTicker(sampleEvery), time.NewTicker(cleanupEvery)
	defer sample.Stop()
	defer cleanup.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sample.C:
			c.sampleLag(ctx)
		case <-cleanup.C:
			c.cleanup(ctx)
		}
	}
}

// Poll is one iteration of Run over every lane in turn: it claims messages idle longer than
// ClaimIdle (looking claimLooks times per ClaimIdle), then reads new messages (blocking up to Block) and handles them as one batch
// (handleBatch). It returns how many messages it handled, whatever the outcome. Poll is not safe
// for concurrent use.
func (c *Consumer) Poll(ctx context.Context) (int, error) {
	if c.invalid != nil {
		return 0, fmt.Errorf("events consumer: %w", c.invalid)
	}
	n := 0
	for _, l := range c.lanes {
		k, err := c.pollLane(ctx, l)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (c *Consumer) pollLane(ctx context.Context, l *lane) (int, error) {
	if !l.ready {
		if err := c.createGroups(ctx, l.types); err != nil {
			return 0, err
		}
		l.ready = true
	}
	n := 0
	if time.Since(l.claimedAt) >= c.cfg.ClaimIdle/claimLooks {
		more := false
		for _, typ := range l.types {
			claimed, err := c.claim(ctx, typ)
			n += claimed
			if err != nil {
				return n, c.readFailed(l, err)
			}
			more = more || int64(claimed) == c.cfg.BatchSize
		}
		if !more { // a full claim may have left more: look again on the next read
			l.claimedAt = time.Now()
		}
	}

	streams := make([]string, 0, 2*len(l.types))
	for _, typ := range l.types {
		streams = append(streams, streamKey(c.cfg.StreamPrefix, typ))
	}
	for range l.types {
		streams = append(streams, ">")
	}
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: c.cfg.Group, Consumer: c.cfg.Consumer, Streams: streams,
		Count: c.cfg.BatchSize, Block: c.cfg.Block,
	}).Result()
	if errors.Is(err, redis.Nil) {
		l.linger.after(ctx, 0, false)
		return n, nil
	}
	if err != nil {
		return n, c.readFailed(l, err)
	}
	var batch []delivery
	for _, s := range res {
		typ := strings.TrimPrefix(s.Stream, c.cfg.StreamPrefix+":")
		for _, m := range s.Messages {
			batch = append(batch, delivery{typ: typ, msg: m, attempts: 1})
		}
	}
	c.handleBatch(ctx, batch)
	l.linger.after(ctx, len(batch), int64(len(batch)) >= c.cfg.BatchSize)
	return n + len(batch), nil
}

// delivery is a message read from the stream of its event type, and how many times it has been
// delivered so far.
type delivery struct {
	typ      string
	msg      redis.XMessage
	attempts int64
	env      Envelope
}

// createGroups starts each group at the beginning of its stream ("0"), so events published before
// the service first ran are not skipped, nor those a relay republishes into a lost stream. A
// stream found missing may have held events the group never read: the producing service's relay
// is asked to rebuild it from the outbox (<prefix>:rebuild:<type>, see Relay).
func (c *Consumer) createGroups(ctx context.Context, types []string) error {
	for _, typ := range types {
		stream := streamKey(c.cfg.StreamPrefix, typ)
		n, err := c.rdb.Exists(ctx, stream).Result()
		if err != nil {
			return fmt.Errorf("events consumer: look for stream %s: %w", stream, err)
		}
		if n == 0 {
			if err := c.rdb.Set(ctx, rebuildKey(c.cfg.StreamPrefix, typ), 1, 0).Err(); err != nil {
				return fmt.Errorf("events consumer: ask for a rebuild of %s: %w", stream, err)
			}
		}
		err = c.rdb.XGroupCreateMkStream(ctx, stream, c.cfg.Group, "0").Err()
		if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
			return fmt.Errorf("events consumer: create group %s on %s: %w", c.cfg.Group, typ, err)
		}
	}
	return nil
}

// readFailed makes the lane's next poll recreate groups when Redis lost them (restart without
// persistence, a deleted stream, or a failover to a replica the group had not reached yet).
func (c *Consumer) readFailed(l *lane, err error) error {
	if strings.Contains(err.Error(), "NOGROUP") {
		l.ready = false
	}
	return fmt.Errorf("events consumer %s: %w", c.cfg.Group, err)
}

// claim takes over messages of typ that stayed unacknowledged longer than ClaimIdle and handles
// them; each claim counts as a delivery.
func (c *Consumer) claim(ctx context.Context, typ string) (int, error) {
	stream := streamKey(c.cfg.StreamPrefix, typ)
	msgs, _, err := c.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
		Stream: stream, Group: c.cfg.Group, Consumer: c.cfg.Consumer,
		MinIdle: c.cfg.ClaimIdle, Start: "0-0", Count: c.cfg.BatchSize,
	}).Result()
	if err != nil {
		return 0, fmt.Errorf("xautoclaim %s: %w", stream, err)
	}
	for i, m := range msgs {
		pending, err := c.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{
			Stream: stream, Group: c.cfg.Group, Start: m.ID, End: m.ID, Count: 1,
		}).Result()
		if err != nil {
			return i, fmt.Errorf("xpending %s: %w", stream, err)
		}
		attempts := int64(1)
		if len(pending) == 1 {
			attempts = pending[0].RetryCount
		}
		c.handle(ctx, delivery{typ: typ, msg: m, attempts: attempts})
	}
	return len(msgs), nil
}

// handleBatch processes newly read messages in one transaction, which records them all as
// processed with their handlers' writes (one commit for the batch, not one per message), and
// acknowledges them together. When a handler fails, the batch rolls back and each message is
// processed alone, so only the failing one is left for redelivery.
func (c *Consumer) handleBatch(ctx context.Context, batch []delivery) {
	valid := batch[:0]
	for _, d := range batch {
		if d, ok := c.admit(ctx, d); ok {
			valid = append(valid, d)
		}
	}
	if len(valid) == 0 {
		return
	}
	// The batch finishes even during shutdown (see handle).
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.HandlerTimeout)
	defer cancel()
	results, err := c.process(hctx, valid)
	if err != nil {
		if len(valid) > 1 {
			slog.WarnContext(hctx, "events consumer: a handler failed in a batch; processing its messages one by one",
				"group", c.cfg.Group, "messages", len(valid), "err", err)
			for _, d := range valid {
				c.handle(ctx, d)
			}
			return
		}
		c.failed(hctx, valid[0], err)
		return
	}
	byStream := map[string][]string{}
	for i, d := range valid {
		consumed.WithLabelValues(c.cfg.Group, d.typ, results[i]).Inc()
		byStream[d.typ] = append(byStream[d.typ], d.msg.ID)
	}
	c.ack(hctx, byStream)
}

// handle processes one message in its own transaction and acknowledges it unless the handler
// failed.
func (c *Consumer) handle(ctx context.Context, d delivery) {
	if d.env.ID == "" {
		var ok bool
		if d, ok = c.admit(ctx, d); !ok {
			return
		}
	}
	// The message in hand finishes even during shutdown. If it outlives ClaimIdle and another
	// replica claims it, that replica's insert into processed_events waits for this transaction and
	// then sees a duplicate.
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.HandlerTimeout)
	defer cancel()
	results, err := c.process(hctx, []delivery{d})
	if err != nil {
		c.failed(hctx, d, err)
		return
	}
	consumed.WithLabelValues(c.cfg.Group, d.typ, results[0]).Inc()
	c.ack(hctx, map[string][]string{d.typ: {d.msg.ID}})
}

// admit decodes a message's envelope, or dead-letters a message that can never succeed: one that
// does not decode, or that has failed MaxAttempts times.
func (c *Consumer) admit(ctx context.Context, d delivery) (delivery, bool) {
	raw, _ := d.msg.Values["envelope"].(string)
	env, err := parseEnvelope(raw, d.typ)
	if err != nil {
		c.deadLetter(ctx, d.typ, d.msg, raw, d.attempts, err.Error())
		return d, false
	}
	if d.attempts > c.cfg.MaxAttempts {
		c.deadLetter(ctx, d.typ, d.msg, raw, d.attempts, fmt.Sprintf("handler failed %d times", c.cfg.MaxAttempts))
		return d, false
	}
	d.env = env
	return d, true
}

func (c *Consumer) failed(ctx context.Context, d delivery, err error) {
	consumed.WithLabelValues(c.cfg.Group, d.typ, "error").Inc()
	slog.ErrorContext(ctx, "events consumer: handler failed; will retry", "group", c.cfg.Group,
		"type", d.typ, "eventId", d.env.ID, "attempt", d.attempts, "err", err)
}

// ack acknowledges handled messages, one XACK per stream in one round trip. A failed ack only
// means the messages come back and are recognised as duplicates.
func (c *Consumer) ack(ctx context.Context, byStream map[string][]string) {
	pipe := c.rdb.Pipeline()
	for typ, ids := range byStream {
		pipe.XAck(ctx, streamKey(c.cfg.StreamPrefix, typ), c.cfg.Group, ids...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		slog.WarnContext(ctx, "events consumer: ack failed; the messages will come back as duplicates",
			"group", c.cfg.Group, "err", err)
	}
}

// parseEnvelope decodes a message of stream typ; a failure here can never succeed on retry.
func parseEnvelope(raw, typ string) (Envelope, error) {
	var env Envelope
	if err := json.Unmarshal([]byte(raw), &env); err != nil {
		return Envelope{}, fmt.Errorf("malformed envelope: %w", err)
	}
	if env.ID == "" || env.Type != typ {
		return Envelope{}, fmt.Errorf("envelope id %q type %q does not belong on the %s stream", env.ID, env.Type, typ)
	}
	return env, nil
}

// process runs the handlers of ds, in order, in one transaction that records their events as
// processed by the group; an event already recorded (a redelivery) is skipped as a duplicate.
// Each handler runs inside a consumer span that continues its producer's trace. It returns each
// message's result, or the first handler error, which rolls everything back.
func (c *Consumer) process(ctx context.Context, ds []delivery) ([]string, error) {
	results := make([]string, len(ds))
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.env.ID
	}
	// The record goes in the round trip that begins the transaction.
	record := &pgx.Batch{}
	record.Queue(`INSERT INTO processed_events (consumer_group, event_id)
		SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING event_id`, c.cfg.Group, ids)
	todo := make(map[string]bool, len(ds))
	read := func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return fmt.Errorf("record processed events: %w", err)
		}
		fresh, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("record processed events: %w", err)
		}
		for _, id := range fresh {
			todo[id] = true
		}
		return nil
	}
	err := pgkit.InTxWith(ctx, c.pool, record, read, func(tx pgx.Tx) error {
		for i, d := range ds {
			if !todo[d.env.ID] {
				results[i] = "duplicate" // recorded before, or earlier in this batch
				continue
			}
			delete(todo, d.env.ID)
			if err := c.run(ctx, tx, d); err != nil {
				return err
			}
			results[i] = "ok"
		}
		return nil
	})
	return results, err
}

// run calls the handler of d inside a consumer span that continues the producer's trace.
func (c *Consumer) run(ctx context.Context, tx pgx.Tx, d delivery) error {
	ctx, span := tracer.Start(d.env.Context(ctx), d.typ+" process",
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "redis"),
			attribute.String("messaging.destination.name", streamKey(c.cfg.StreamPrefix, d.typ)),
			attribute.String("messaging.consumer.group.name", c.cfg.Group),
			attribute.String("messaging.message.id", d.env.ID),
		))
	defer span.End()
	if err := c.handlers[d.typ](pgkit.WithTx(ctx, tx), d.env); err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return fmt.Errorf("event %s (%s): %w", d.env.ID, d.typ, err)
	}
	span.SetAttributes(attribute.String("bizassist.events.result", "ok"))
	return nil
}

// deadLetter parks a message that cannot succeed in <prefix>:deadletter:<group> and acknowledges
// it, so it stops blocking retries. The ack follows only a successful XADD.
func (c *Consumer) deadLetter(ctx context.Context, typ string, m redis.XMessage, raw string, attempts int64, reason string) {
	stream := streamKey(c.cfg.StreamPrefix, typ)
	dead := c.cfg.StreamPrefix + ":deadletter:" + c.cfg.Group
	err := c.rdb.XAdd(ctx, &redis.XAddArgs{Stream: dead, Values: []any{
		"envelope", raw, "stream", stream, "messageId", m.ID, "attempts", attempts, "reason", reason,
	}}).Err()
	if err == nil {
		err = c.rdb.XAck(ctx, stream, c.cfg.Group, m.ID).Err()
	}
	if err != nil {
		slog.ErrorContext(ctx, "events consumer: dead-letter failed; will retry", "group", c.cfg.Group,
			"stream", stream, "messageId", m.ID, "err", err)
		return
	}
	consumed.WithLabelValues(c.cfg.Group, typ, "deadletter").Inc()
	slog.ErrorContext(ctx, "events consumer: message dead-lettered", "group", c.cfg.Group,
		"stream", stream, "messageId", m.ID, "deadletter", dead, "reason", reason)
}

// sampleLag sets, per stream, how many messages the group has not acknowledged: never delivered
// (XINFO GROUPS lag) plus delivered but pending.
func (c *Consumer) sampleLag(ctx context.Context) {
	for _, typ := range c.types {
		groups, err := c.rdb.XInfoGroups(ctx, streamKey(c.cfg.StreamPrefix, typ)).Result()
		if err != nil {
			slog.WarnContext(ctx, "events consumer: sample lag", "group", c.cfg.Group, "type", typ, "err", err)
			continue
		}
		for _, g := range groups {
			if g.Name == c.cfg.Group {
				consumerLag.WithLabelValues(c.cfg.Group, typ).Set(float64(g.Lag + g.Pending))
			}
		}
	}
}

func (c *Consumer) cleanup(ctx context.Context) {
	_, err := c.pool.Exec(ctx, `DELETE FROM processed_events WHERE (consumer_group, event_id) IN (
		SELECT consumer_group, event_id FROM processed_events
		WHERE consumer_group = $1 AND processed_at < now() - make_interval(secs => $2) LIMIT $3)`,
		c.cfg.Group, c.cfg.Retention.Seconds(), cleanupLimit)
	if err != nil {
		slog.WarnContext(ctx, "events consumer: delete old processed ids", "group", c.cfg.Group, "err", err)
	}
}
