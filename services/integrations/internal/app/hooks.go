package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Attempt is one logged delivery attempt.
type Attempt struct {
	DeliveryID  string
	Event       string
	AttemptedAt time.Time
	StatusCode  int // 0 when no response came back
	LatencyMS   int
	Error       string
}

// SubscriptionStore keeps REST hook subscriptions.
type SubscriptionStore interface {
	// AddSubscription hands decide the account's subscriptions, locked against every other
	// AddSubscription of the account until the one decide returns with created true is stored.
	AddSubscription(ctx context.Context, accountID string,
		decide func(existing []domain.Subscription) (sub domain.Subscription, created bool, err error)) (domain.Subscription, bool, error)
	ListSubscriptions(ctx context.Context, accountID string) ([]domain.Subscription, error)
	// DeleteSubscription removes the account's subscription (its deliveries go with it);
	// ErrNotFound if it has none by id.
	DeleteSubscription(ctx context.Context, accountID, id string) error
}

// DeliveryLog is what an account sees and redoes of its deliveries.
type DeliveryLog interface {
	// Attempts lists the newest attempts of the account's subscription; ErrNotFound if it has none by id.
	Attempts(ctx context.Context, accountID, subscriptionID string, limit int) ([]Attempt, error)
	// Reopen makes the account's finished delivery pending again, keeping its id (its
	// webhook-id), in the transaction ctx carries, and returns the job that must own it;
	// ErrNotFound if the account has none by id (or its subscription is not active), ErrPending
	// if it is still pending.
	Reopen(ctx context.Context, accountID, deliveryID string) (DeliveryJob, error)
}

// MaxSubscriptionsPerAccount keeps one account from turning us into a fan-out amplifier.
const MaxSubscriptionsPerAccount = 100

// MaxSubscriptionsPerHost bounds how many of one account's subscriptions point at one host
// (ports apart), so one event reaches a host at most this often per account: room for every
// event type at two URLs of one receiver, far below the account's 100.
const MaxSubscriptionsPerHost = 20

// Hooks are the REST hook use cases of an authenticated account.
type Hooks struct {
	Store      SubscriptionStore
	Deliveries DeliveryLog
	Tx         Transactor
	Jobs       JobQueue
	Policy     domain.TargetPolicy
	Now        Clock
}

// Subscribe registers hookURL for the account's events of one type. It is idempotent: the same
// event and URL again return the subscription the account already has, with created false.
func (h Hooks) Subscribe(ctx context.Context, accountID, hookURL, event string) (sub domain.Subscription, created bool, err error) {
	sub, err = domain.NewSubscription(accountID, event, hookURL, h.Policy, h.Now())
	if err != nil {
		return domain.Subscription{}, false, err
	}
	sub, created, err = h.Store.AddSubscription(ctx, accountID, func(existing []domain.Subscription) (domain.Subscription, bool, error) {
		for _, e := range existing {
			if e.SameTarget(sub) {
				return e, false, nil
			}
		}
		return sub, true, withinLimits(existing, sub)
	})
	if err != nil {
		return domain.Subscription{}, false, fmt.Errorf("subscribe: %w", err)
	}
	return sub, created, nil
}

// withinLimits refuses sub when the account's existing subscriptions leave no room for it.
func withinLimits(existing []domain.Subscription, sub domain.Subscription) error {
	if len(existing) >= MaxSubscriptionsPerAccount {
		return apperr.Conflict("too_many_subscriptions",
			fmt.Sprintf("an account may have at most %d subscriptions; delete one first", MaxSubscriptionsPerAccount))
	}
	sameHost := 0
	for _, e := range existing {
		if e.Host() == sub.Host() {
			sameHost++
		}
	}
	if sameHost >= MaxSubscriptionsPerHost {
		return apperr.Conflict("too_many_subscriptions_to_host",
			fmt.Sprintf("an account may have at most %d subscriptions to one host; delete one first", MaxSubscriptionsPerHost))
	}
	return nil
}

func (h Hooks) List(ctx context.Context, accountID string) ([]domain.Subscription, error) {
	return h.Store.ListSubscriptions(ctx, accountID)
}

func (h Hooks) Unsubscribe(ctx context.Context, accountID, id string) error {
	return notFoundAs(h.Store.DeleteSubscription(ctx, accountID, id), "subscription "+id)
}

// MaxAttemptsListed bounds one page of the attempt log.
const MaxAttemptsListed = 100

func (h Hooks) Attempts(ctx context.Context, accountID, subscriptionID string) ([]Attempt, error) {
	a, err := h.Deliveries.Attempts(ctx, accountID, subscriptionID, MaxAttemptsListed)
	return a, notFoundAs(err, "subscription "+subscriptionID)
}

// Replay queues the account's delivery again under the same webhook-id: it is pending again and
// its job queued in one transaction.
func (h Hooks) Replay(ctx context.Context, accountID, deliveryID string) error {
	err := h.Tx.InTx(ctx, func(ctx context.Context) error {
		job, err := h.Deliveries.Reopen(ctx, accountID, deliveryID)
		if err != nil {
			return err
		}
		return h.Jobs.Enqueue(ctx, job)
	})
	if errors.Is(err, ErrPending) {
		return apperr.Conflict("delivery_pending", "delivery "+deliveryID+" is still queued; replay it once it has succeeded or failed")
	}
	return notFoundAs(err, "delivery "+deliveryID+" of an active subscription")
}

func notFoundAs(err error, what string) error {
	if errors.Is(err, ErrNotFound) {
		return apperr.NotFound(apperr.CodeNotFound, "no "+what)
	}
	return err
}
