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

// JobQueue queues delivery attempts in the caller's transaction, so a planned delivery and its
// job commit together. The jobs carry their account, whose share of the workers they use.
type JobQueue interface {
	EnqueueTx(ctx context.Context, tx pgx.Tx, accountID string, deliveryIDs ...string) error
}

// Store is every integrations store over one pool. Subscription signing secrets are stored
// sealed by box (see secrets.go).
type Store struct {
	pool    *pgxpool.Pool
	jobs    JobQueue
	box     *sealbox.Box
	records *pgkit.Group[app.AttemptRecord]
	// reads serves the delivery log, which tolerates replication lag (UseReplica).
	reads *pgkit.Reads
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
