package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// TxRunner runs fn in one transaction.
type TxRunner interface {
	InTx(ctx context.Context, fn func(pgx.Tx) error) error
}

// Outbox publishes events with the transaction's other writes.
type Outbox interface {
	Publish(ctx context.Context, tx pgx.Tx, pubs ...Publication) error
}

// PaymentStore deduplicates processor events and matches them to accounts.
type PaymentStore interface {
	// ClaimPayment records the event id; false when it was recorded before.
	ClaimPayment(ctx context.Context, tx pgx.Tx, p domain.Payment) (bool, error)
	// MatchAccount finds the account by processor customer id, else by email (owners first);
	// ErrNotFound when neither matches.
	MatchAccount(ctx context.Context, tx pgx.Tx, customerID, email string) (string, error)
	// RememberCustomer links a processor customer id to an account.
	RememberCustomer(ctx context.Context, tx pgx.Tx, customerID, accountID string) error
	// SetPaymentAccount notes which account a claimed event matched.
	SetPaymentAccount(ctx context.Context, tx pgx.Tx, eventID, accountID string) error
}

// PaymentResult says what became of a processor event.
type PaymentResult struct {
	Duplicate bool
	Matched   bool
	Forwarded int
}

// PaymentData is the payload of payment.<type> events (see README).
type PaymentData struct {
	StripeEventID     string  `json:"stripeEventId"`
	Type              string  `json:"type"`
	CustomerEmail     string  `json:"customerEmail,omitempty"`
	AccountID         string  `json:"accountId"`
	Plan              string  `json:"plan,omitempty"`
	Status            string  `json:"status,omitempty"`
	Amount            *int64  `json:"amount,omitempty"`
	SubscriptionID    string  `json:"subscriptionId,omitempty"`
	CancelAtPeriodEnd *bool   `json:"cancelAtPeriodEnd,omitempty"`
	EndedAt           *string `json:"endedAt,omitempty"`
	NextAttempt       *string `json:"nextAttempt,omitempty"`
}

// ReceivePayment handles a verified processor event once: it is matched to an account, published
// as payment.<type> and forwarded to the account's subscribers, all in one transaction.
type ReceivePayment struct {
	Tx       TxRunner
	Payments PaymentStore
	Outbox   Outbox
	Planner  Planner
}

func (h ReceivePayment) Handle(ctx context.Context, p domain.Payment) (PaymentResult, error) {
	var res PaymentResult
	if !slices.Contains(domain.PaymentEventTypes, p.Type) {
		return res, nil // acknowledged so the processor stops sending it; nothing to do
	}
	err := h.Tx.InTx(ctx, func(tx pgx.Tx) error {
		res = PaymentResult{}
		fresh, err := h.Payments.ClaimPayment(ctx, tx, p)
		if err != nil || !fresh {
			res.Duplicate = !fresh
			return err
		}
		accountID, err := h.Payments.MatchAccount(ctx, tx, p.CustomerID, p.CustomerEmail)
		if errors.Is(err, ErrNotFound) {
			return nil // a customer we do not know: recorded, not forwarded
		}
		if err != nil {
			return err
		}
		res.Matched = true
		if p.CustomerID != "" {
			if err := h.Payments.RememberCustomer(ctx, tx, p.CustomerID, accountID); err != nil {
				return err
			}
		}
		if err := h.Payments.SetPaymentAccount(ctx, tx, p.EventID, accountID); err != nil {
			return err
		}
		if err := h.Outbox.Publish(ctx, tx, Publication{Type: "payment." + p.Type, AccountID: accountID, Data: paymentData(p, accountID)}); err != nil {
			return err
		}
		msg, err := p.Message()
		if err != nil {
			return err
		}
		res.Forwarded, err = h.Planner.Plan(ctx, tx, accountID, msg)
		return err
	})
	if err != nil {
		return PaymentResult{}, fmt.Errorf("receive payment event %s: %w", p.EventID, err)
	}
	return res, nil
}

func paymentData(p domain.Payment, accountID string) PaymentData {
	d := PaymentData{
		StripeEventID: p.EventID, Type: p.Type, CustomerEmail: p.CustomerEmail, AccountID: accountID,
		Plan: p.Plan, Status: p.Status, Amount: p.Amount, SubscriptionID: p.SubscriptionID,
		CancelAtPeriodEnd: p.CancelAtPeriodEnd,
	}
	if d.Amount == nil {
		d.Amount = p.AmountDue
	}
	d.EndedAt = domain.OptionalTime(p.EndedAt)
	d.NextAttempt = domain.OptionalTime(p.NextAttempt)
	return d
}
