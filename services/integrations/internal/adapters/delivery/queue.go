package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
)

// QueueName is the River queue deliveries (and the hourly prune) run on; the workers
// (ports.NewJobWorkers) work it.
const QueueName = "deliveries"

// maxAttemptsBackstop only guards against a runaway job; the retry window of the policy is what
// normally ends a failing delivery.
const maxAttemptsBackstop = 10_000

// Migrate brings River's tables up to date in the pool's schema (first on its search path).
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.Default()})
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	return nil
}

// Queue inserts delivery jobs (app.DeliveryJob, River's job args); it is an insert-only River
// client, so producers need no workers.
type Queue struct {
	client *river.Client[pgx.Tx]
}

// NewQueue returns a queue that wakes the workers at most once per notifyEvery (River's
// insert-notification limit), which bounds how long a new job waits for a worker.
func NewQueue(pool *pgxpool.Pool, notifyEvery time.Duration) (*Queue, error) {
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: slog.Default(), FetchCooldown: notifyEvery})
	if err != nil {
		return nil, fmt.Errorf("river insert client: %w", err)
	}
	return &Queue{client: c}, nil
}

// errNoTx is Enqueue without a transaction: a job must commit with the change that needs it.
var errNoTx = errors.New("delivery queue: no transaction in ctx to queue the jobs in")

// Enqueue implements app.JobQueue.
func (q *Queue) Enqueue(ctx context.Context, jobs ...app.DeliveryJob) error {
	if len(jobs) == 0 {
		return nil
	}
	tx, ok := pgkit.TxFrom(ctx)
	if !ok {
		return errNoTx
	}
	params := make([]river.InsertManyParams, len(jobs))
	for i, j := range jobs {
		opts := &river.InsertOpts{Queue: QueueName, MaxAttempts: maxAttemptsBackstop, ScheduledAt: j.At}
		params[i] = river.InsertManyParams{Args: j, InsertOpts: opts}
	}
	_, err := q.client.InsertManyTx(ctx, tx, params)
	return err
}
