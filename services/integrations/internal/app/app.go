// Package app holds the integrations use cases. Each is a struct with a Handle method over narrow
// interfaces that the adapters implement. Use cases that run inside an event consumer's
// transaction take that pgx.Tx as their unit of work, so their writes commit with the
// processed-event record.
package app

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Store errors the use cases turn into answers.
var (
	// ErrNotFound is a row that does not exist (for this account).
	ErrNotFound = errors.New("not found")
	// ErrPending is a delivery that is still queued, so it cannot be replayed.
	ErrPending = errors.New("delivery is pending")
)

// Publication is an event the service publishes through its outbox.
type Publication struct {
	Type      string
	AccountID string
	Data      any
}

// Planner fans a message out to the account's active subscriptions for its type, inside tx:
// one delivery row and one queued job per subscription. It returns how many were planned.
type Planner interface {
	Plan(ctx context.Context, tx pgx.Tx, accountID string, msg domain.Message) (int, error)
}

// Clock lets tests fix "now".
type Clock func() time.Time

// Application is every use case, wired by the service package.
type Application struct {
	ReceiveInbound ReceiveInbound
	RotateSecret   RotateSecret
	ProjectAccount ProjectAccount
	Hooks          Hooks
	Forward        Forward
	Deliver        Deliver
	ReceivePayment ReceivePayment
}
