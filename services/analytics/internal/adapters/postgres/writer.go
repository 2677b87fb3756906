package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// WriterConfig sizes the group-commit writer.
type WriterConfig struct {
	// Workers is how many batches may be in flight at once, each on its own connection.
	Workers int `env:"USAGE_WRITER_WORKERS" envDefault:"4"`
	// MaxBatch caps the events committed in one transaction.
	MaxBatch int `env:"USAGE_WRITER_MAX_BATCH" envDefault:"500"`
	// Timeout bounds one batch's transaction.
	Timeout time.Duration `env:"USAGE_WRITER_TIMEOUT" envDefault:"10s"`
}

// Validate reports a config that cannot work.
func (c WriterConfig) Validate() error {
	if c.Workers < 1 || c.MaxBatch < 1 || c.Timeout <= 0 {
		return fmt.Errorf("USAGE_WRITER_WORKERS (%d), USAGE_WRITER_MAX_BATCH (%d) and USAGE_WRITER_TIMEOUT (%s) must be positive",
			c.Workers, c.MaxBatch, c.Timeout)
	}
	return nil
}

// UsageWriter stores API usage events with group commit: requests queue up while a transaction
// commits, the next transaction takes all of them, and each request is answered only after the
// commit that holds its event. One fsync then serves many requests, and nothing is acknowledged
// before it is durable.
type UsageWriter struct {
	pool  *pgxpool.Pool
	cfg   WriterConfig
	queue chan *write

	mu     sync.RWMutex // held for reading while enqueueing, for writing by Close
	closed bool
	stop   chan struct{}
	wg     sync.WaitGroup
}

type write struct {
	event usage.Event
	idem  *app.Idempotency
	done  chan writeResult
}

type writeResult struct {
	logged app.Logged
	err    error
}

// NewUsageWriter starts the writer's workers; Close stops them.
func NewUsageWriter(pool *pgxpool.Pool, cfg WriterConfig) *UsageWriter {
	w := &UsageWriter{pool: pool, cfg: cfg, queue: make(chan *write, cfg.MaxBatch*cfg.Workers), stop: make(chan struct{})}
	w.wg.Add(cfg.Workers)
	for lane := range cfg.Workers {
		go w.work(int16(lane)) //nolint:gosec // a handful of workers
	}
	return w
}

var errWriterClosed = apperr.Unavailable(apperr.CodeUnavailable, "usage writer is shutting down")

// Record queues e and waits for the commit that stores it.
func (w *UsageWriter) Record(ctx context.Context, e usage.Event, idem *app.Idempotency) (app.Logged, error) {
	wr := &write{event: e, idem: idem, done: make(chan writeResult, 1)}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return app.Logged{}, errWriterClosed
	}
	select {
	case w.queue <- wr:
	case <-ctx.Done():
		w.mu.RUnlock()
		return app.Logged{}, ctx.Err()
	}
	w.mu.RUnlock()
	select {
	case r := <-wr.done:
		return r.logged, r.err
	case <-ctx.Done():
		return app.Logged{}, ctx.Err()
	}
}

// Close stops taking events, commits every queued one, and returns when all are answered.
func (w *UsageWriter) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.stop)
	}
	w.mu.Unlock()
	w.wg.Wait()
}

func (w *UsageWriter) work(lane int16) {
	defer w.wg.Done()
	for {
		var first *write
		select {
		case first = <-w.queue:
		case <-w.stop:
			// No Record can enqueue any more; commit what is left.
			for {
				batch := w.take(nil)
				if len(batch) == 0 {
					return
				}
				w.flush(batch, lane)
			}
		}
		w.flush(w.take(first), lane)
	}
}

// take collects first and whatever else is queued, up to MaxBatch, without waiting.
func (w *UsageWriter) take(first *write) []*write {
	batch := make([]*write, 0, w.cfg.MaxBatch)
	if first != nil {
		batch = append(batch, first)
	}
	for len(batch) < w.cfg.MaxBatch {
		select {
		case wr := <-w.queue:
			batch = append(batch, wr)
		default:
			return batch
		}
	}
	return batch
}

func (w *UsageWriter) flush(batch []*write, lane int16) {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.Timeout)
	defer cancel()
	var results []writeResult
	var err error
	start := time.Now()
	// A deadlock between two batches over idempotency keys is retried; one of them always wins.
	for attempt := 0; attempt < 3; attempt++ {
		if keyed(batch) {
			err = pgkit.InTx(ctx, w.pool, func(tx pgx.Tx) error {
				results, err = writeBatch(ctx, tx, batch, lane)
				return err
			})
		} else {
			results, err = writePlain(ctx, w.pool, batch, lane)
		}
		if !pgkit.Retryable(err) {
			break
		}
	}
	batchSeconds.Observe(time.Since(start).Seconds())
	batchSize.Observe(float64(len(batch)))
	if err != nil {
		batchErrors.Inc()
		// Data PostgreSQL refuses fails the whole transaction; one request's bad data must not
		// fail the others, so each is tried alone.
		if isDataError(err) && len(batch) > 1 {
			for _, wr := range batch {
				w.flush([]*write{wr}, lane)
			}
			return
		}
	}
	for i, wr := range batch {
		if err != nil {
			wr.done <- writeResult{err: fmt.Errorf("record usage: %w", err)}
			continue
		}
		wr.done <- results[i]
	}
}

func keyed(batch []*write) bool {
	for _, wr := range batch {
		if wr.idem != nil {
			return true
		}
	}
	return false
}

// writePlain stores a batch without idempotency keys in a single round trip.
func writePlain(ctx context.Context, pool *pgxpool.Pool, batch []*write, lane int16) ([]writeResult, error) {
	events := make([]usage.Event, len(batch))
	results := make([]writeResult, len(batch))
	for i, wr := range batch {
		events[i] = wr.event
		results[i] = writeResult{logged: app.Logged{EventID: wr.event.ID(), At: wr.event.At()}}
	}
	if err := storeNew(ctx, pool, events, SourceAPI, lane); err != nil {
		return nil, err
	}
	return results, nil
}

// isDataError is a value PostgreSQL refused (class 22, data exception).
func isDataError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && strings.HasPrefix(pgErr.Code, "22")
}

type keyRef struct{ account, key string }

// writeBatch stores the batch's events in tx and returns each write's result. A write with an
// idempotency key already stored (or seen earlier in the batch) gets the stored result instead.
func writeBatch(ctx context.Context, tx pgx.Tx, batch []*write, lane int16) ([]writeResult, error) {
	results := make([]writeResult, len(batch))
	firstOfKey := map[keyRef]int{} // the write that claims each key
	var claims []int
	for i, wr := range batch {
		if wr.idem == nil {
			continue
		}
		k := keyRef{wr.event.AccountID(), wr.idem.Key}
		if _, seen := firstOfKey[k]; !seen {
			firstOfKey[k] = i
			claims = append(claims, i)
		}
	}
	claimed, err := claimKeys(ctx, tx, batch, claims)
	if err != nil {
		return nil, err
	}
	stored, err := storedKeys(ctx, tx, batch, claims, claimed)
	if err != nil {
		return nil, err
	}

	events := make([]usage.Event, 0, len(batch))
	for i, wr := range batch {
		if wr.idem != nil {
			k := keyRef{wr.event.AccountID(), wr.idem.Key}
			first := firstOfKey[k]
			if s, ok := stored[k]; ok || first != i {
				if !ok { // a repeat within the batch answers like its first
					s = storedKey{fingerprint: batch[first].idem.Fingerprint, logged: app.Logged{EventID: batch[first].event.ID(), At: batch[first].event.At()}}
				}
				results[i] = replay(s, wr.idem)
				continue
			}
		}
		events = append(events, wr.event)
		results[i] = writeResult{logged: app.Logged{EventID: wr.event.ID(), At: wr.event.At()}}
	}
	if err := storeNew(ctx, tx, events, SourceAPI, lane); err != nil {
		return nil, err
	}
	return results, nil
}

func replay(s storedKey, idem *app.Idempotency) writeResult {
	if !bytes.Equal(s.fingerprint, idem.Fingerprint) {
		return writeResult{err: app.ErrIdempotencyKeyReused}
	}
	logged := s.logged
	logged.Replayed = true
	return writeResult{logged: logged}
}

// claimKeys inserts the keys of the writes at idx and returns those that were not stored yet.
func claimKeys(ctx context.Context, tx pgx.Tx, batch []*write, idx []int) (map[keyRef]bool, error) {
	if len(idx) == 0 {
		return nil, nil
	}
	sorted := slices.Clone(idx)
	slices.SortFunc(sorted, func(a, b int) int { // one lock order across batches
		ea, eb := batch[a], batch[b]
		if c := strings.Compare(ea.event.AccountID(), eb.event.AccountID()); c != 0 {
			return c
		}
		return strings.Compare(ea.idem.Key, eb.idem.Key)
	})
	n := len(sorted)
	accounts, keys, fps, eventIDs, ats := make([]string, n), make([]string, n), make([][]byte, n), make([]string, n), make([]time.Time, n)
	for j, i := range sorted {
		wr := batch[i]
		accounts[j], keys[j], fps[j], eventIDs[j], ats[j] = wr.event.AccountID(), wr.idem.Key, wr.idem.Fingerprint, wr.event.ID(), wr.event.At()
	}
	rows, err := tx.Query(ctx, `INSERT INTO idempotency_keys (account_id, key, fingerprint, event_id, created_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::timestamptz[])
		ON CONFLICT (account_id, key) DO NOTHING
		RETURNING account_id, key`, accounts, keys, fps, eventIDs, ats)
	if err != nil {
		return nil, fmt.Errorf("claim idempotency keys: %w", err)
	}
	claimed := map[keyRef]bool{}
	var k keyRef
	if _, err := pgx.ForEachRow(rows, []any{&k.account, &k.key}, func() error {
		claimed[k] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("claim idempotency keys: %w", err)
	}
	return claimed, nil
}

type storedKey struct {
	fingerprint []byte
	logged      app.Logged
}

// storedKeys loads the earlier results of the keys that could not be claimed.
func storedKeys(ctx context.Context, tx pgx.Tx, batch []*write, idx []int, claimed map[keyRef]bool) (map[keyRef]storedKey, error) {
	var accounts, keys []string
	for _, i := range idx {
		k := keyRef{batch[i].event.AccountID(), batch[i].idem.Key}
		if !claimed[k] {
			accounts, keys = append(accounts, k.account), append(keys, k.key)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `SELECT k.account_id, k.key, k.fingerprint, k.event_id, k.created_at
		FROM idempotency_keys k JOIN unnest($1::text[], $2::text[]) AS r(account_id, key)
			ON k.account_id = r.account_id AND k.key = r.key`, accounts, keys)
	if err != nil {
		return nil, fmt.Errorf("load idempotency keys: %w", err)
	}
	out := map[keyRef]storedKey{}
	var (
		k keyRef
		s storedKey
	)
	if _, err := pgx.ForEachRow(rows, []any{&k.account, &k.key, &s.fingerprint, &s.logged.EventID, &s.logged.At}, func() error {
		s.logged.At = s.logged.At.UTC()
		s.fingerprint = bytes.Clone(s.fingerprint)
		out[k] = s
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load idempotency keys: %w", err)
	}
	if len(out) != len(keys) {
		return nil, errors.New("load idempotency keys: a conflicting key vanished")
	}
	return out, nil
}

// ExpireKeys forgets idempotency keys stored before before: a retry later than that is a new event.
func (w *UsageWriter) ExpireKeys(ctx context.Context, before time.Time) (int64, error) {
	tag, err := w.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("expire idempotency keys: %w", err)
	}
	return tag.RowsAffected(), nil
}
