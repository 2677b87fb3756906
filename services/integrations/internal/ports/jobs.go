package ports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
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
	// JobTimeout is how long one job may run (app.JobTimeout); a job still running
	// Retries.RescueAfter after it started is taken for a dead worker's and retried.
	JobTimeout   time.Duration
	Retries      app.JobRetries
	PollInterval time.Duration // how often to look for due retries besides insert notifications
	// FetchCooldown is the least time between two fetches of new jobs; it bounds the delay
	// between an insert notification and the job starting.
	FetchCooldown time.Duration
}

// NewJobWorkers returns the River client that works the queued jobs: each delivery job is one
// RunJob.Handle, and the hourly prune is Prune.Handle. Start and Stop it with the process.
func NewJobWorkers(pool *pgxpool.Pool, run app.RunJob, prune app.Prune, cfg JobConfig) (*river.Client[pgx.Tx], error) {
	if cfg.Queue == "" || cfg.JobTimeout <= 0 || cfg.Retries.RescueAfter <= cfg.JobTimeout || cfg.Retries.Now == nil {
		return nil, errors.New("job workers: a queue, a job timeout, a later rescue and a clock must be set")
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &deliveryWorker{run: run}); err != nil {
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
		RetryPolicy: retryPolicy{cfg.Retries},
		JobTimeout:  cfg.JobTimeout,
		// River's default is an hour past the job timeout, so a killed worker's jobs sat in
		// running, counted nowhere, for that long.
		RescueStuckJobsAfter: cfg.Retries.RescueAfter,
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

// deliveryWorker runs a queued delivery job and tells River what the use case decided.
type deliveryWorker struct {
	river.WorkerDefaults[app.DeliveryJob]
	run app.RunJob
}

func (w *deliveryWorker) Work(ctx context.Context, job *river.Job[app.DeliveryJob]) error {
	next, err := w.run.Handle(ctx, job.Args, snoozes(job.JobRow))
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

// retryPolicy asks app.JobRetries when a failed job runs again.
type retryPolicy struct{ retries app.JobRetries }

func (r retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	var args app.DeliveryJob
	_ = json.Unmarshal(job.EncodedArgs, &args) // a job that does not decode has no earlier failures to count
	return r.retries.Next(args, len(job.Errors), job.AttemptedAt)
}
