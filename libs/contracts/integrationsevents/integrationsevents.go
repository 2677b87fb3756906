// Package integrationsevents is integrations' event contract (see package contracts): the inbound
// webhook events it accepted and the payment-processor events it matched to an account. The
// envelope's accountId is the account whose webhook secret received the inbound event, or the
// account the payment event was matched to.
package integrationsevents

import (
	"strings"

	"github.com/bizassist/bizassist/libs/isotime"
)

// Inbound event types: "inbound." + the event name an integrator sent.
const (
	InboundNewLead     = "inbound.new_lead"
	InboundNewClient   = "inbound.new_client"
	InboundContactForm = "inbound.contact_form"
)

// PaymentPrefix starts every payment event type: "payment." + the processor's event type.
const PaymentPrefix = "payment."

// The payment processor's own event types that integrations forwards; every service that reads
// one names it from here.
const (
	CheckoutSessionCompleted = "checkout.session.completed"
	SubscriptionCreated      = "customer.subscription.created"
	SubscriptionUpdated      = "customer.subscription.updated"
	SubscriptionDeleted      = "customer.subscription.deleted"
	InvoicePaid              = "invoice.paid"
	InvoicePaymentFailed     = "invoice.payment_failed"
	InvoicePaymentSucceeded  = "invoice.payment_succeeded"
)

// ProcessorTypes returns the processor's event types integrations forwards, in a stable order.
func ProcessorTypes() []string {
	return []string{CheckoutSessionCompleted, SubscriptionCreated, SubscriptionUpdated, SubscriptionDeleted,
		InvoicePaid, InvoicePaymentFailed, InvoicePaymentSucceeded}
}

// Payment event types integrations publishes.
const (
	PaymentCheckoutSessionCompleted = PaymentPrefix + CheckoutSessionCompleted
	PaymentSubscriptionCreated      = PaymentPrefix + SubscriptionCreated
	PaymentSubscriptionUpdated      = PaymentPrefix + SubscriptionUpdated
	PaymentSubscriptionDeleted      = PaymentPrefix + SubscriptionDeleted
	PaymentInvoicePaid              = PaymentPrefix + InvoicePaid
	PaymentInvoicePaymentFailed     = PaymentPrefix + InvoicePaymentFailed
	PaymentInvoicePaymentSucceeded  = PaymentPrefix + InvoicePaymentSucceeded
)

// PaymentTypes returns every payment event type, in ProcessorTypes' order.
func PaymentTypes() []string {
	types := ProcessorTypes()
	for i, t := range types {
		types[i] = PaymentPrefix + t
	}
	return types
}

// ProcessorType is the processor's own name of a payment event type (invoice.paid for
// payment.invoice.paid).
func ProcessorType(eventType string) string { return strings.TrimPrefix(eventType, PaymentPrefix) }

// NewLeadData is the payload of inbound.new_lead: the inbox id and the fields as given (spec 2.11),
// plus the sender's extra fields (bounded by integrations; absent in events of earlier versions).
type NewLeadData struct {
	InboundID string            `json:"inboundId"`
	Name      string            `json:"name"`
	Email     string            `json:"email"`
	Phone     string            `json:"phone,omitempty"`
	Source    string            `json:"source,omitempty"`
	Notes     string            `json:"notes,omitempty"`
	Extras    map[string]string `json:"extras,omitempty"`
}

// NewClientData is the payload of inbound.new_client.
type NewClientData struct {
	InboundID    string `json:"inboundId"`
	BusinessName string `json:"businessName"`
	Email        string `json:"email"`
	OwnerName    string `json:"ownerName,omitempty"`
	Phone        string `json:"phone,omitempty"`
	Plan         string `json:"plan,omitempty"`
}

// ContactFormData is the payload of inbound.contact_form.
type ContactFormData struct {
	InboundID string `json:"inboundId"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Phone     string `json:"phone,omitempty"`
	Subject   string `json:"subject,omitempty"`
	Message   string `json:"message,omitempty"`
}

// PaymentData is the payload of every payment event; fields that do not apply to the event are
// omitted. Amount is the invoice's amount due for invoice events.
type PaymentData struct {
	StripeEventID     string        `json:"stripeEventId"`
	Type              string        `json:"type"` // the processor's event type, e.g. invoice.payment_failed
	CustomerEmail     string        `json:"customerEmail,omitempty"`
	AccountID         string        `json:"accountId"`
	Plan              string        `json:"plan,omitempty"`
	Status            string        `json:"status,omitempty"` // subscription status
	Amount            *int64        `json:"amount,omitempty"`
	SubscriptionID    string        `json:"subscriptionId,omitempty"`
	CancelAtPeriodEnd *bool         `json:"cancelAtPeriodEnd,omitempty"`
	EndedAt           *isotime.Time `json:"endedAt,omitempty"`
	NextAttempt       *isotime.Time `json:"nextAttempt,omitempty"`
}
