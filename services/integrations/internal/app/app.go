// Package app holds the integrations use cases. Each is a struct with a Handle method over narrow
// interfaces that the adapters implement. A use case's unit of work is the transaction its ctx
// carries (an event consumer's, or one a Transactor opened), which the stores and the outbox
// join, so its writes and events commit together. Accepting an inbound event, the hottest write,
// is one store call instead (InboxStore.Accept), so that the store can send it in one round trip
// with the event the use case built. The delivery path reads top-down, its policy all here:
// PlanDeliveries decides who makes each first attempt (the Dispatcher or a queued job), the
// Dispatcher and RunJob (which the queue's workers in ports call) share the AccountSlots and call
// Deliver, AttemptLog records the attempts, and HandOver moves what a dispatcher will not attempt
// to jobs.
package app

import (
	"context"
	"errors"
	"time"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Store errors the use cases turn into answers.
var (
	// ErrNotFound is a row that does not exist (for this account).
	ErrNotFound = errors.New("not found")
	// ErrPending is a delivery that is still queued, so it cannot be replayed.
	ErrPending = errors.New("delivery is pending")
)

// Transactor runs fn as one unit of work: fn's ctx carries the transaction that the stores and
// the outbox join.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Outbox publishes events with the writes of the transaction ctx carries, so an event commits if
// and only if its change does.
type Outbox interface {
	Publish(ctx context.Context, evs ...contracts.Event) error
}

// Planner fans a message out to the account's active subscriptions for its type, in the
// transaction ctx carries (PlanDeliveries). It returns how many deliveries were planned.
type Planner interface {
	Plan(ctx context.Context, accountID string, msg domain.Message) (int, error)
}

// Clock lets tests fix "now".
type Clock func() time.Time

// Application is every use case, wired by the service package.
type Application struct {
	ReceiveInbound ReceiveInbound
	RotateSecret   RotateSecret
	ProjectAccount ProjectAccount
	Hooks          Hooks
	KnowLead       KnowLead
	ForwardLead    Forward[domain.LeadWritten]
	ForwardHealth  Forward[domain.HealthCritical]
	RunJob         RunJob
	HandOver       HandOver
	Prune          Prune
	ReceivePayment ReceivePayment
}
