package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// DeliveryTarget is what one attempt needs: the message and where and how to send it.
type DeliveryTarget struct {
	DeliveryID   string
	CreatedAt    time.Time
	Payload      []byte
	Subscription domain.Subscription
}

// AttemptRecord is the outcome of one attempt and what it changes.
type AttemptRecord struct {
	DeliveryID     string
	SubscriptionID string
	At             time.Time
	StatusCode     int
	Latency        time.Duration
	Error          string
	Outcome        domain.Outcome
	GiveUp         bool // the delivery will not be tried again
	Disable        bool // the subscription has failed for too long
	Recovered      bool // delivered while the subscription was failing: its failure streak ends
	// Requeue is set when no queued job holds the delivery (its first attempt was dispatched
	// in process) and it must be tried again: the record queues this job.
	Requeue *DeliveryJob
}

// DeliveryStore loads deliveries.
type DeliveryStore interface {
	// Target loads a pending delivery; ErrNotFound when it or its subscription is gone.
	Target(ctx context.Context, deliveryID string) (DeliveryTarget, error)
}

// AttemptRecorder records one attempt and applies its effects (AttemptLog).
type AttemptRecorder interface {
	Record(ctx context.Context, r AttemptRecord) error
}

// SendResult is what came back from one POST.
type SendResult struct {
	StatusCode int // 0 when no response came back
	RetryAfter string
	Latency    time.Duration
	Err        error          // the detail, for operators: it may name internal addresses
	Failure    domain.Failure // Err in the words the account sees
}

// Sender POSTs a signed message to a subscriber.
type Sender interface {
	Send(ctx context.Context, sub domain.Subscription, messageID string, payload []byte) SendResult
}

// Next tells the queue what to do with the delivery after an attempt.
type Next struct {
	Done      bool          // delivered, or nothing left to do
	SnoozeFor time.Duration // the receiver asked to come back later (Retry-After)
	Retry     error         // failed: retry with backoff, this error logged
	GiveUp    error         // failed for too long: stop
}

// Deliver makes one attempt at a delivery and records it.
type Deliver struct {
	Store    DeliveryStore
	Attempts AttemptRecorder
	Sender   Sender
	Policy   domain.RetryPolicy
	Now      Clock
}

// Handle makes the attempt a queued job asks for. answered is called as soon as the receiver has
// answered (or the attempt failed), before the attempt is recorded: it ends the caller's hold on
// the receiver's share of the workers.
func (h Deliver) Handle(ctx context.Context, deliveryID string, answered func()) (Next, error) {
	t, err := h.Store.Target(ctx, deliveryID)
	if errors.Is(err, ErrNotFound) {
		return Next{Done: true}, nil
	}
	if err != nil {
		return Next{}, fmt.Errorf("load delivery %s: %w", deliveryID, err)
	}
	return h.attempt(ctx, t, false, answered)
}

// Attempt makes the first attempt of a delivery that was planned in this process and that no
// queued job holds yet; when it must be tried again, its record queues the job. answered is as
// for Handle.
func (h Deliver) Attempt(ctx context.Context, t DeliveryTarget, answered func()) (Next, error) {
	return h.attempt(ctx, t, true, answered)
}

func (h Deliver) attempt(ctx context.Context, t DeliveryTarget, unqueued bool, answered func()) (Next, error) {
	if t.Subscription.Status() != domain.SubscriptionActive {
		return Next{Done: true}, nil
	}
	res := h.Sender.Send(ctx, t.Subscription, t.DeliveryID, t.Payload)
	answered()
	now := h.Now().UTC()
	outcome, retryAfter := domain.Judge(res.StatusCode, res.RetryAfter, now)
	rec := AttemptRecord{
		DeliveryID: t.DeliveryID, SubscriptionID: t.Subscription.ID(), At: now,
		StatusCode: res.StatusCode, Latency: res.Latency, Outcome: outcome,
		Recovered: outcome == domain.Delivered && t.Subscription.FailingSince() != nil,
	}
	var failure error
	if outcome == domain.Throttled || outcome == domain.Failed {
		failure = attemptError(res)
		rec.Error = string(describe(res))
		slog.WarnContext(ctx, "delivery attempt failed", "delivery", t.DeliveryID, "subscription", t.Subscription.ID(),
			"account", t.Subscription.AccountID(), "status", res.StatusCode, "error", failure)
		failingSince := now
		if fs := t.Subscription.FailingSince(); fs != nil {
			failingSince = *fs
		}
		rec.Disable = h.Policy.ShouldDisable(failingSince, now)
		rec.GiveUp = rec.Disable || now.Sub(t.CreatedAt) >= h.Policy.GiveUpAfter
		if unqueued && !rec.GiveUp {
			rec.Requeue = h.firstRetry(t, outcome, retryAfter, now)
		}
	}
	// The attempt happened; a shutdown must not lose its record.
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := h.Attempts.Record(recordCtx, rec); err != nil {
		return Next{}, fmt.Errorf("record attempt of %s: %w", t.DeliveryID, err)
	}
	switch {
	case failure == nil:
		return Next{Done: true}, nil
	case rec.GiveUp:
		return Next{GiveUp: failure}, nil
	case outcome == domain.Throttled:
		return Next{SnoozeFor: retryAfter}, nil
	default:
		return Next{Retry: failure}, nil
	}
}

// firstRetry is the job a failed first attempt queues: after Retry-After when the receiver asked
// for a pause (as a queued job is snoozed, it counts no failure), else after the first backoff.
func (h Deliver) firstRetry(t DeliveryTarget, outcome domain.Outcome, retryAfter time.Duration, now time.Time) *DeliveryJob {
	job := &DeliveryJob{DeliveryID: t.DeliveryID, AccountID: t.Subscription.AccountID(), SubscriptionID: t.Subscription.ID(), At: now.Add(retryAfter)}
	if outcome != domain.Throttled {
		job.At, job.Failures = now.Add(h.Policy.Backoff(1)), 1
	}
	return job
}

func attemptError(res SendResult) error {
	if res.Err != nil {
		return res.Err
	}
	return fmt.Errorf("receiver answered %d", res.StatusCode)
}

// describe is the attempt's outcome as the account's attempt log shows it.
func describe(res SendResult) domain.Failure {
	switch {
	case res.Err == nil:
		return domain.StatusFailure(res.StatusCode)
	case res.Failure != "":
		return res.Failure
	default:
		return domain.FailureConnection
	}
}
