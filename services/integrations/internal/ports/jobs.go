package ports

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
	"github.com/riverqueue/river/rivertype"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// PruneArgs is the periodic job that keeps the delivery log to its retention.
type PruneArgs struct{}

func (PruneArgs) Kind() string { return "integrations.prune" }

// pruneEvery is how often the (leader-elected) River scheduler enqueues a prune.
const pruneEvery = time.Hour

// JobConfig sizes the queued jobs' workers.
type JobConfig struct {
	Queue       string // the River queue they work (delivery.QueueName)
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

// RescueMargin is how long past its job timeout a running job may go before the leader's
// rescuer takes it for the job of a dead worker (kill -9, OOM) and retries it. A live worker has
// given up on the job by then: River cancels a job's context at its timeout. It spans two samples
// of the stuck-jobs gauge (delivery.DepthEvery), so a dead worker's jobs are counted before they
// are retried, not only when the rescue fails.
const RescueMargin = 30 * time.Second

// JobTimeout is how long one delivery job may run: the sender's timeout and a little more to
// record the attempt.
func JobTimeout(cfg JobConfig) time.Duration { return cfg.AttemptTimeout + 30*time.Second }

// NewJobWorkers returns the River client that works the queued jobs: each delivery job is one
// Deliver.Handle, and the hourly prune is Prune.Handle. Start and Stop it with the process.
func NewJobWorkers(pool *pgxpool.Pool, deliver app.Deliver, prune app.Prune, cfg JobConfig) (*river.Client[pgx.Tx], error) {
	if cfg.Slots == nil || cfg.Queue == "" {
		return nil, errors.New("job workers: no queue or account slots")
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &deliveryWorker{deliver: deliver, slots: cfg.Slots}); err != nil {
		return nil, err
	}
	if err := river.AddWorkerSafely(workers, &pruneWorker{prune: prune}); err != nil {
		return nil, err
	}
	pruneOpts := &river.InsertOpts{Queue: cfg.Queue, UniqueOpts: river.UniqueOpts{ByPeriod: pruneEvery}}
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Logger:      slog.Default(),
		Queues:      map[string]river.QueueConfig{cfg.Queue: {MaxWorkers: cfg.Concurrency}},
		Workers:     workers,
		RetryPolicy: retryPolicy{p: cfg.Policy, rescueAfter: JobTimeout(cfg) + RescueMargin},
		JobTimeout:  JobTimeout(cfg),
		// River's default is an hour past the job timeout, so a killed worker's jobs sat in
		// running, counted nowhere, for that long.
		RescueStuckJobsAfter: JobTimeout(cfg) + RescueMargin,
		FetchCooldown:        min(cfg.FetchCooldown, cfg.PollInterval),
		FetchPollInterval:    cfg.PollInterval,
		PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(pruneEvery),
			func() (river.JobArgs, *river.InsertOpts) { return PruneArgs{}, pruneOpts }, nil)},
	})
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return c, nil
}

// deliveryWorker makes the attempt a queued delivery job asks for, within its account's share
// of the workers.
type deliveryWorker struct {
	river.WorkerDefaults[app.DeliveryJob]
	deliver app.Deliver
	slots   *AccountSlots
}

func (w *deliveryWorker) Work(ctx context.Context, job *river.Job[app.DeliveryJob]) error {
	release, wait := w.slots.acquire(ctx, job.Args.AccountID, job.Args.SubscriptionID, snoozes(job.JobRow)+1)
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

// snoozes is how many times the job was put off: River counts them in its metadata (since
// v0.16 a snooze gives the attempt back, so attempt less errors no longer counts them).
func snoozes(job *rivertype.JobRow) int {
	var m struct {
		Snoozes int `json:"snoozes"`
	}
	_ = json.Unmarshal(job.Metadata, &m) // a job never snoozed has no count: zero
	return m.Snoozes
}

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

// retryPolicy applies the domain's backoff to River's error count. A job rescued from a dead
// worker (attempted longer ago than any live attempt lasts) is retried at once: its receiver did
// not fail, its worker did.
type retryPolicy struct {
	p           domain.RetryPolicy
	rescueAfter time.Duration
}

func (r retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	now := time.Now().UTC()
	if job.AttemptedAt != nil && now.Sub(*job.AttemptedAt) >= r.rescueAfter {
		return now
	}
	var args app.DeliveryJob
	_ = json.Unmarshal(job.EncodedArgs, &args) // a job that does not decode has no earlier failures to count
	return now.Add(r.p.Backoff(args.Failures + len(job.Errors) + 1))
}
