package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// QueueName is the River queue deliveries run on.
const QueueName = "deliveries"

// maxAttemptsBackstop only guards against a runaway job; the retry window of the policy is what
// normally ends a failing delivery.
const maxAttemptsBackstop = 10_000

// Args is one delivery job: attempt the delivery row with this id, of this account. Jobs queued
// before the account was carried have none and share one account's slots. Failures counts the
// attempts that failed before the job was queued (a dispatched first attempt), so its backoff
// goes on from there.
type Args struct {
	DeliveryID string `json:"deliveryId"`
	AccountID  string `json:"accountId,omitempty"`
	Failures   int    `json:"failures,omitempty"`
}

func (Args) Kind() string { return "integrations.delivery" }

func (Args) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueName, MaxAttempts: maxAttemptsBackstop}
}

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

// Queue inserts delivery jobs; it is an insert-only River client, so producers need no workers.
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

// EnqueueTx implements postgres.JobQueue.
func (q *Queue) EnqueueTx(ctx context.Context, tx pgx.Tx, jobs ...app.DeliveryJob) error {
	if len(jobs) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(jobs))
	for i, j := range jobs {
		params[i] = river.InsertManyParams{Args: Args{DeliveryID: j.DeliveryID, AccountID: j.AccountID, Failures: j.Failures}}
		if !j.At.IsZero() {
			opts := Args{}.InsertOpts()
			opts.ScheduledAt = j.At
			params[i].InsertOpts = &opts
		}
	}
	_, err := q.client.InsertManyTx(ctx, tx, params)
	return err
}

// PruneArgs is the periodic job that keeps the delivery log to its retention.
type PruneArgs struct{}

func (PruneArgs) Kind() string { return "integrations.prune" }

func (PruneArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueName, UniqueOpts: river.UniqueOpts{ByPeriod: pruneEvery}}
}

// pruneEvery is how often the (leader-elected) River scheduler enqueues a prune.
const pruneEvery = time.Hour

type pruneWorker struct {
	river.WorkerDefaults[PruneArgs]
	prune app.Prune
}

func (w *pruneWorker) Work(ctx context.Context, _ *river.Job[PruneArgs]) error {
	n, err := w.prune.Handle(ctx)
	if n > 0 {
		slog.InfoContext(ctx, "pruned delivery log", "rows", n)
	}
	return err
}

// Timeout lets a prune of a large backlog run longer than one delivery attempt.
func (w *pruneWorker) Timeout(*river.Job[PruneArgs]) time.Duration { return 10 * time.Minute }

// WorkerConfig sizes the delivery workers.
type WorkerConfig struct {
	Concurrency int
	// Slots is how many of one account's deliveries run at once in this process; the account's
	// other due deliveries are put off, leaving the workers to other accounts.
	Slots          *AccountSlots
	AttemptTimeout time.Duration // the sender's timeout; a job gets a little more to record it
	Policy         domain.RetryPolicy
	PollInterval   time.Duration // how often to look for due retries besides insert notifications
	// FetchCooldown is the least time between two fetches of new jobs; it bounds the delay
	// between an insert notification and the job starting.
	FetchCooldown time.Duration
}

// NewWorkers returns a River client that runs deliveries and the hourly prune; Start and Stop
// it with the process.
func NewWorkers(pool *pgxpool.Pool, deliver app.Deliver, prune app.Prune, cfg WorkerConfig) (*river.Client[pgx.Tx], error) {
	if cfg.Slots == nil {
		return nil, errors.New("delivery workers: no account slots")
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &worker{deliver: deliver, slots: cfg.Slots}); err != nil {
		return nil, err
	}
	if err := river.AddWorkerSafely(workers, &pruneWorker{prune: prune}); err != nil {
		return nil, err
	}
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Logger:            slog.Default(),
		Queues:            map[string]river.QueueConfig{QueueName: {MaxWorkers: cfg.Concurrency}},
		Workers:           workers,
		RetryPolicy:       retryPolicy{cfg.Policy},
		JobTimeout:        cfg.AttemptTimeout + 30*time.Second,
		FetchCooldown:     min(cfg.FetchCooldown, cfg.PollInterval),
		FetchPollInterval: cfg.PollInterval,
		PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(pruneEvery),
			func() (river.JobArgs, *river.InsertOpts) { return PruneArgs{}, nil }, nil)},
	})
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return c, nil
}

type worker struct {
	river.WorkerDefaults[Args]
	deliver app.Deliver
	slots   *accountSlots
}

func (w *worker) Work(ctx context.Context, job *river.Job[Args]) error {
	// Runs that logged no error were snoozes: this job's deferrals so far, plus one.
	release, wait := w.slots.acquire(ctx, job.Args.AccountID, job.Attempt-len(job.Errors))
	if release == nil {
		deferrals.Inc()
		return river.JobSnooze(wait)
	}
	release = sync.OnceFunc(release)
	defer release()
	next, err := w.deliver.Handle(ctx, job.Args.DeliveryID, release)
	countOutcome(next, err)
	switch {
	case err != nil:
		return err
	case next.GiveUp != nil:
		return river.JobCancel(next.GiveUp)
	case next.Retry != nil:
		return next.Retry
	case !next.Done:
		return river.JobSnooze(next.SnoozeFor)
	default:
		return nil
	}
}

// retryPolicy applies the domain's backoff to River's error count.
type retryPolicy struct{ p domain.RetryPolicy }

func (r retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	var args Args
	_ = json.Unmarshal(job.EncodedArgs, &args) // a job that does not decode has no earlier failures to count
	return time.Now().UTC().Add(r.p.Backoff(args.Failures + len(job.Errors) + 1))
}
