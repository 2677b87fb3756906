// Package postgres implements the integrations stores on the service's own schema.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
)

// JobQueue queues delivery attempts in the caller's transaction, so a delivery and its job
// commit together.
type JobQueue interface {
	EnqueueTx(ctx context.Context, tx pgx.Tx, jobs ...app.DeliveryJob) error
}

// Dispatcher makes the first attempt of deliveries planned in this process, without a queued
// job: a planned delivery is claimed for it until Lease from now, and handed to it once the
// transaction that planned it has committed.
type Dispatcher interface {
	Lease() time.Duration
	// Dispatch takes deliveries claimed until until; it must not block (it runs at commit).
	Dispatch(until time.Time, targets []app.DeliveryTarget)
}

// Store is every integrations store over one pool. Subscription signing secrets are stored
// sealed by box (see secrets.go).
type Store struct {
	pool     *pgxpool.Pool
	jobs     JobQueue
	dispatch Dispatcher // nil: every planned delivery is queued as a job
	box      *sealbox.Box
	records  *pgkit.Group[app.AttemptRecord]
	// reads serves the delivery log, which tolerates replication lag (UseReplica).
	reads   *pgkit.Reads
	secrets rememberedSecrets
}

// Bounds of one group commit of delivery attempts: a batch holds what the workers recorded while
// the previous one committed (at most the worker count), within one attempt's record timeout.
const (
	recordBatch   = 200
	recordTimeout = 10 * time.Second
)

func New(pool *pgxpool.Pool, jobs JobQueue, box *sealbox.Box) *Store {
	s := &Store{pool: pool, jobs: jobs, box: box, reads: pgkit.PrimaryReads(pool)}
	s.records = pgkit.NewGroup(recordBatch, recordTimeout, s.recordAll)
	return s
}

// DispatchTo makes the first attempt of every delivery planned from now on d's.
func (s *Store) DispatchTo(d Dispatcher) { s.dispatch = d }

// UseReplica sends the delivery log's reads through reads (the read replica within its lag bound).
func (s *Store) UseReplica(reads *pgkit.Reads) { s.reads = reads }

func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return app.ErrNotFound
	}
	return err
}

func wrap(what string, err error) error {
	if err == nil || errors.Is(err, app.ErrNotFound) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}
