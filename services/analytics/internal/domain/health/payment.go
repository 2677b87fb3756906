package health

import (
	"time"

	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
)

// PaymentStatus is what the payment processor last told us about an account's subscription.
type PaymentStatus string

const (
	PaymentUnknown   PaymentStatus = "unknown" // no payment events seen (free accounts, or not yet)
	PaymentActive    PaymentStatus = "active"
	PaymentPastDue   PaymentStatus = "past_due"
	PaymentCanceling PaymentStatus = "canceling" // cancels at the end of the period
	PaymentCanceled  PaymentStatus = "canceled"
)

// Payment is an account's payment state: its status and failed attempts since the last success.
type Payment struct {
	Status   PaymentStatus
	Failures int
}

// PaymentEvent is the part of a forwarded processor event the payment state needs.
type PaymentEvent struct {
	Type              string // the processor's event type, e.g. invoice.payment_failed
	Status            string // subscription status, when the event carries one
	CancelAtPeriodEnd bool
}

// Apply returns the state after e. Event types it does not know leave the state unchanged.
func (p Payment) Apply(e PaymentEvent) Payment {
	switch e.Type {
	case integrationsevents.CheckoutSessionCompleted, integrationsevents.InvoicePaymentSucceeded, integrationsevents.InvoicePaid:
		return Payment{Status: PaymentActive}
	case integrationsevents.InvoicePaymentFailed:
		return Payment{Status: PaymentPastDue, Failures: p.Failures + 1}
	case integrationsevents.SubscriptionDeleted:
		return Payment{Status: PaymentCanceled}
	case integrationsevents.SubscriptionCreated, integrationsevents.SubscriptionUpdated:
		if e.CancelAtPeriodEnd {
			return Payment{Status: PaymentCanceling, Failures: p.Failures}
		}
		switch e.Status {
		case "active", "trialing":
			return Payment{Status: PaymentActive}
		case "past_due", "unpaid":
			return Payment{Status: PaymentPastDue, Failures: max(p.Failures, 1)}
		case "canceled", "incomplete_expired":
			return Payment{Status: PaymentCanceled}
		}
	}
	return p
}

// PaymentState is an account's payment state and when the event that last moved it happened
// (zero when none has).
type PaymentState struct {
	Payment
	At time.Time
}

// Apply returns the state after e, which happened at at. An event older than the one that set the
// state is ignored (false, state unchanged): the processor's order counts, not arrival order.
func (s PaymentState) Apply(e PaymentEvent, at time.Time) (PaymentState, bool) {
	if !s.At.IsZero() && at.Before(s.At) {
		return s, false
	}
	return PaymentState{Payment: s.Payment.Apply(e), At: at}, true
}

// Score is the paymentHealth signal: full marks unless the processor reported trouble.
func (p Payment) Score() int {
	switch p.Status {
	case PaymentPastDue:
		if p.Failures >= 2 {
			return 15
		}
		return 40
	case PaymentCanceling:
		return 20
	case PaymentCanceled:
		return 0
	default:
		return 100
	}
}
