package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// PaymentStore deduplicates processor events and matches them to accounts, in the transaction
// ctx carries.
type PaymentStore interface {
	// ClaimPayment records the event id; false when it was recorded before.
	ClaimPayment(ctx context.Context, p domain.Payment) (bool, error)
	// MatchAccount finds the account for p by domain.MatchPayment's rule; ErrNotFound when none.
	MatchAccount(ctx context.Context, p domain.Payment) (PaymentMatch, error)
	// RememberCustomer links a processor customer id to an account.
	RememberCustomer(ctx context.Context, customerID, accountID string) error
	// SetPaymentAccount notes which account a claimed event matched.
	SetPaymentAccount(ctx context.Context, eventID, accountID string) error
}

// PaymentMatch is the account a payment event belongs to, its email, and how it was found.
type PaymentMatch struct {
	AccountID string
	Email     string
	By        domain.MatchedBy
}

// PaymentResult says what became of a processor event.
type PaymentResult struct {
	Duplicate bool
	Matched   bool
	Forwarded int
}

// ReceivePayment handles a verified processor event once: it is matched to an account, published
// as payment.<type> and forwarded to the account's subscribers, all in one transaction.
type ReceivePayment struct {
	Tx       Transactor
	Payments PaymentStore
	Outbox   Outbox
	Planner  Planner
}

func (h ReceivePayment) Handle(ctx context.Context, p domain.Payment) (PaymentResult, error) {
	var res PaymentResult
	if !slices.Contains(domain.PaymentEventTypes, p.Type) {
		return res, nil // acknowledged so the processor stops sending it; nothing to do
	}
	err := h.Tx.InTx(ctx, func(ctx context.Context) error {
		res = PaymentResult{}
		fresh, err := h.Payments.ClaimPayment(ctx, p)
		if err != nil || !fresh {
			res.Duplicate = !fresh
			return err
		}
		m, err := h.Payments.MatchAccount(ctx, p)
		if errors.Is(err, ErrNotFound) {
			return nil // a customer we do not know: recorded, not forwarded
		}
		if err != nil {
			return err
		}
		res.Matched = true
		accountID := m.AccountID
		if p.CustomerID != "" && m.By.Binds() {
			if err := h.Payments.RememberCustomer(ctx, p.CustomerID, accountID); err != nil {
				return err
			}
		}
		// One rule for every type: the account's own email. The processor names a billing email on
		// checkouts and invoices and none on most subscription events; it stays in processor_event.
		p.CustomerEmail = m.Email
		if err := h.Payments.SetPaymentAccount(ctx, p.EventID, accountID); err != nil {
			return err
		}
		if err := h.Outbox.Publish(ctx, contracts.Event{Type: integrationsevents.PaymentPrefix + p.Type, AccountID: accountID,
			Data: paymentData(p, accountID)}); err != nil {
			return err
		}
		msg, err := p.Message()
		if err != nil {
			return err
		}
		res.Forwarded, err = h.Planner.Plan(ctx, accountID, msg)
		return err
	})
	if err != nil {
		return PaymentResult{}, fmt.Errorf("receive payment event %s: %w", p.EventID, err)
	}
	return res, nil
}

func paymentData(p domain.Payment, accountID string) integrationsevents.PaymentData {
	d := integrationsevents.PaymentData{
		StripeEventID: p.EventID, Type: p.Type, CustomerEmail: p.CustomerEmail, AccountID: accountID,
		Plan: p.Plan, Status: p.Status, Amount: p.Amount, SubscriptionID: p.SubscriptionID,
		CancelAtPeriodEnd: p.CancelAtPeriodEnd,
	}
	if d.Amount == nil {
		d.Amount = p.AmountDue
	}
	d.EndedAt = optionalTime(p.EndedAt)
	d.NextAttempt = optionalTime(p.NextAttempt)
	return d
}

func optionalTime(t *time.Time) *isotime.Time {
	if t == nil {
		return nil
	}
	return &isotime.Time{Time: *t}
}
