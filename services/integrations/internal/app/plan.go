package app

import (
	"context"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Subscribers finds whom a message goes to.
type Subscribers interface {
	// Subscribers are the account's active subscriptions to event, read in the transaction ctx
	// carries.
	Subscribers(ctx context.Context, accountID, event string) ([]domain.Subscription, error)
}

// PlannedDeliveries writes planned deliveries.
type PlannedDeliveries interface {
	// Add writes the deliveries of msg as pending, in the transaction ctx carries. With claim > 0 each is
	// claimed for this process until claim from now on the database's clock (the clock the
	// sweepers read); with 0 it is not claimed and a queued job must own it.
	Add(ctx context.Context, msg domain.Message, targets []DeliveryTarget, claim time.Duration) error
}

// JobQueue queues delivery attempts in the transaction ctx carries, so a job commits if and only
// if the change that needs it does. It fails without a transaction in ctx.
type JobQueue interface {
	Enqueue(ctx context.Context, jobs ...DeliveryJob) error
}

// FirstAttempts makes the first attempt of deliveries planned in this process, without a queued
// job (the dispatcher, an inbound port that calls Deliver.Attempt). Whatever it does not attempt
// it hands to queued jobs itself (HandOver).
type FirstAttempts interface {
	// Accepting is false once it has begun to stop: what is planned then goes to jobs at once.
	Accepting() bool
	// Lease is how long a delivery handed to it stays claimed for it.
	Lease() time.Duration
	// Dispatch takes deliveries claimed until until. It must not block: it runs as the
	// transaction that planned them commits.
	Dispatch(until time.Time, targets []DeliveryTarget)
}

// AfterCommit runs fn once the transaction ctx carries has committed (at once when ctx carries
// none), and never when it rolls back. fn must not block.
type AfterCommit func(ctx context.Context, fn func()) error

// PlanDeliveries fans a message out to the account's active subscriptions for its type: one
// pending delivery per subscription, in the transaction ctx carries (the consumer's or the
// payment's), so an event is planned exactly once and never lost. It is the one place that
// decides who owns each delivery's first attempt: the process's dispatcher, which gets the
// deliveries claimed for it once that transaction has committed (most first attempts succeed, and a
// job is a row inserted, fetched and completed), or, without a dispatcher or while it stops, a
// queued job each, committed with the deliveries.
type PlanDeliveries struct {
	Tx          Transactor // joins the transaction ctx carries; begins one without
	Subscribers Subscribers
	Deliveries  PlannedDeliveries
	Jobs        JobQueue
	Dispatcher  FirstAttempts // nil: every first attempt is a queued job
	AfterCommit AfterCommit
	Now         Clock
}

// Plan implements Planner.
func (h PlanDeliveries) Plan(ctx context.Context, accountID string, msg domain.Message) (int, error) {
	planned := 0
	err := h.Tx.InTx(ctx, func(ctx context.Context) error {
		subs, err := h.Subscribers.Subscribers(ctx, accountID, msg.Event)
		if err != nil || len(subs) == 0 {
			return err
		}
		now := h.Now().UTC()
		targets := make([]DeliveryTarget, len(subs))
		for i, sub := range subs {
			targets[i] = DeliveryTarget{DeliveryID: ids.New("msg"), CreatedAt: now, Payload: msg.Body, Subscription: sub}
		}
		planned = len(targets)
		if h.Dispatcher == nil || !h.Dispatcher.Accepting() {
			if err := h.Deliveries.Add(ctx, msg, targets, 0); err != nil {
				return err
			}
			jobs := make([]DeliveryJob, len(targets))
			for i, t := range targets {
				jobs[i] = DeliveryJob{DeliveryID: t.DeliveryID, AccountID: accountID, SubscriptionID: t.Subscription.ID()}
			}
			return h.Jobs.Enqueue(ctx, jobs...)
		}
		// The dispatcher keeps its own copy of the claim's end on this process's clock, which it
		// reads with a margin.
		lease := h.Dispatcher.Lease()
		if err := h.Deliveries.Add(ctx, msg, targets, lease); err != nil {
			return err
		}
		until := now.Add(lease)
		return h.AfterCommit(ctx, func() { h.Dispatcher.Dispatch(until, targets) })
	})
	if err != nil {
		return 0, fmt.Errorf("plan %s deliveries: %w", msg.Event, err)
	}
	return planned, nil
}

// Claims ends the claims of dispatched deliveries, so that queued jobs can own them.
type Claims interface {
	// EndClaims ends the claims of those of the deliveries that are pending and still claimed, in
	// the transaction ctx carries, and returns their jobs. Others (attempted, or handed over
	// already) are left alone.
	EndClaims(ctx context.Context, deliveryIDs []string) ([]DeliveryJob, error)
	// EndExpiredClaims is EndClaims for at most limit pending deliveries whose claim has run
	// out. Replicas may do it at once: each takes rows the others have not locked.
	EndExpiredClaims(ctx context.Context, limit int) ([]DeliveryJob, error)
}

// HandOver gives dispatched deliveries that their dispatcher will not attempt (it is full,
// stopping, or its process died and their claims ran out) to queued jobs: each claim ends in the
// transaction that queues its job, so a delivery has exactly one owner at any time.
type HandOver struct {
	Tx     Transactor
	Claims Claims
	Jobs   JobQueue
}

// Claimed hands the deliveries over and says how many were still claimed.
func (h HandOver) Claimed(ctx context.Context, deliveryIDs []string) (int, error) {
	return h.hand(ctx, "hand dispatched deliveries to jobs", func(ctx context.Context) ([]DeliveryJob, error) {
		return h.Claims.EndClaims(ctx, deliveryIDs)
	})
}

// Expired hands over at most limit deliveries whose claim has run out and says how many.
func (h HandOver) Expired(ctx context.Context, limit int) (int, error) {
	return h.hand(ctx, "hand expired claims to jobs", func(ctx context.Context) ([]DeliveryJob, error) {
		return h.Claims.EndExpiredClaims(ctx, limit)
	})
}

func (h HandOver) hand(ctx context.Context, what string, end func(ctx context.Context) ([]DeliveryJob, error)) (int, error) {
	n := 0
	err := h.Tx.InTx(ctx, func(ctx context.Context) error {
		jobs, err := end(ctx)
		if err != nil {
			return err
		}
		n = len(jobs)
		return h.Jobs.Enqueue(ctx, jobs...)
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return n, nil
}
