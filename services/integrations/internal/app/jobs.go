package app

import (
	"context"
	"sync"
	"time"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// DeliveryJob is a queued attempt at a delivery: what the job queue stores (as JSON, under
// Kind) and what its workers hand to Deliver. Jobs queued by earlier versions decode into it, so
// its JSON names never change; one queued before the account was carried has none.
type DeliveryJob struct {
	DeliveryID string `json:"deliveryId"`
	AccountID  string `json:"accountId,omitempty"` // whose share of the workers the attempt uses
	// SubscriptionID bounds the subscription's part of that share (AccountSlots); one queued
	// before it was carried has none, and such jobs share one part of their account's.
	SubscriptionID string    `json:"subscriptionId,omitempty"`
	Failures       int       `json:"failures,omitempty"` // failed attempts so far, which the job's backoff continues from
	At             time.Time `json:"-"`                  // when it is due; the zero time is now
}

// Kind names delivery jobs in the queue (River's job kind).
func (DeliveryJob) Kind() string { return "integrations.delivery" }

// DeliveryMetrics counts what the delivery policy decides; the names and labels are the
// dashboards' (adapters/delivery).
type DeliveryMetrics interface {
	// Attempted counts what an attempt meant for its delivery.
	Attempted(next Next, err error)
	// Deferred counts a job put off because its account had its share of the workers in flight.
	Deferred()
	// HandedOff counts n deliveries planned for a first attempt in process that went to queued
	// jobs instead, by reason.
	HandedOff(reason string, n int)
}

// RunJob makes the attempt a queued delivery job asks for, within its account's share of the
// workers: with no slot free the job is put off (Next.SnoozeFor), leaving the worker to other
// accounts.
type RunJob struct {
	Deliver Deliver
	Slots   *AccountSlots // shared with the dispatcher
	Metrics DeliveryMetrics
}

// Handle runs job, which its queue has put off deferrals times before.
func (h RunJob) Handle(ctx context.Context, job DeliveryJob, deferrals int) (Next, error) {
	release, wait := h.Slots.acquire(ctx, job.AccountID, job.SubscriptionID, deferrals+1)
	if release == nil {
		h.Metrics.Deferred()
		return Next{SnoozeFor: wait}, nil
	}
	release = sync.OnceFunc(release)
	defer release()
	next, err := h.Deliver.Handle(ctx, job.DeliveryID, release)
	h.Metrics.Attempted(next, err)
	return next, err
}

// RescueMargin is how long past its job timeout a running job may go before it is taken for the
// job of a dead worker (kill -9, OOM) and retried. A live worker has given up on the job by then:
// its context ends at the timeout. It spans two samples of the stuck-jobs gauge
// (delivery.DepthEvery), so a dead worker's jobs are counted before they are retried, not only
// when the rescue fails.
const RescueMargin = 30 * time.Second

// JobTimeout is how long one delivery job may run: the sender's timeout and a little more to
// record the attempt.
func JobTimeout(attemptTimeout time.Duration) time.Duration { return attemptTimeout + 30*time.Second }

// JobRetries says when a failed delivery job runs again: after the domain's backoff for its
// failures so far, or at once when it was rescued from a dead worker (attempted longer ago than
// any live attempt lasts): its receiver did not fail, its worker did.
type JobRetries struct {
	Policy      domain.RetryPolicy
	RescueAfter time.Duration // JobTimeout + RescueMargin
	Now         Clock
}

// Next is when job runs again after errors failed runs of its own, the last one started at
// attemptedAt (nil when it never started).
func (r JobRetries) Next(job DeliveryJob, errors int, attemptedAt *time.Time) time.Time {
	now := r.Now().UTC()
	if attemptedAt != nil && now.Sub(*attemptedAt) >= r.RescueAfter {
		return now
	}
	return now.Add(r.Policy.Backoff(job.Failures + errors + 1))
}
