package app

import (
	"context"
	"time"

	"github.com/bizassist/bizassist/libs/groupcommit"
)

// Bounds of one group commit of attempts: a batch holds what the workers recorded while the
// previous one committed (at most the worker count), within one attempt's record timeout.
const (
	recordBatch   = 200
	recordTimeout = 10 * time.Second
)

// AttemptStore logs attempts and applies their effects (AttemptRecord), all of them or none: in
// the transaction ctx carries or, without one, in one implicit transaction (one round trip).
type AttemptStore interface {
	RecordAll(ctx context.Context, records []AttemptRecord) error
}

// AttemptLog records attempts as the workers finish them. Attempts recorded at the same time
// share one transaction (group commit): one commit for many deliveries. It queues the retry jobs
// of dispatched deliveries (AttemptRecord.Requeue) in that transaction, so the record that ends a
// dispatched delivery's claim and the job that then owns it commit together.
type AttemptLog struct {
	store AttemptStore
	tx    Transactor
	jobs  JobQueue
	group *groupcommit.Group[AttemptRecord]
}

// NewAttemptLog returns the attempt log over store; tx begins the transaction a batch with
// retries needs.
func NewAttemptLog(store AttemptStore, tx Transactor, jobs JobQueue) *AttemptLog {
	l := &AttemptLog{store: store, tx: tx, jobs: jobs}
	l.group = groupcommit.New(recordBatch, recordTimeout, l.recordAll)
	return l
}

// Record implements AttemptRecorder.
func (l *AttemptLog) Record(ctx context.Context, r AttemptRecord) error { return l.group.Do(ctx, r) }

func (l *AttemptLog) recordAll(ctx context.Context, records []AttemptRecord) error {
	var retries []DeliveryJob
	for _, r := range records {
		if r.Requeue != nil {
			retries = append(retries, *r.Requeue)
		}
	}
	if len(retries) == 0 {
		return l.store.RecordAll(ctx, records)
	}
	return l.tx.InTx(ctx, func(ctx context.Context) error {
		if err := l.store.RecordAll(ctx, records); err != nil {
			return err
		}
		return l.jobs.Enqueue(ctx, retries...)
	})
}
