package domain

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/libs/isotime"
)

// LeadWritten is a lead written to an account's sheet (leads' lead.written), as new_lead tells it.
type LeadWritten struct {
	LeadID string
	Name   string
	Email  string
	Phone  string
	Source string
	At     time.Time // when it was written; zero when the event did not say
}

// HealthCritical is a client that entered the critical tier (analytics' health.critical), as
// health_score.critical tells it.
type HealthCritical struct {
	Email          string
	BusinessName   string
	Score          int
	Recommendation string
}

// Message is the body POSTed to subscribers of one event type: a flat JSON object whose "event"
// field names the type, followed by the spec 6.1 key fields.
type Message struct {
	Event string
	Body  json.RawMessage
}

// NewLeadMessage builds the outbound new_lead body; serviceId is the lead's id.
func NewLeadMessage(l LeadWritten) (Message, error) {
	var timestamp string
	if !l.At.IsZero() {
		timestamp = isotime.Format(l.At)
	}
	return encode(OutboundNewLead, struct {
		Event     string `json:"event"`
		Name      string `json:"name"`
		Email     string `json:"email"`
		Phone     string `json:"phone"`
		Source    string `json:"source"`
		ServiceID string `json:"serviceId"`
		Timestamp string `json:"timestamp"`
	}{OutboundNewLead, l.Name, l.Email, l.Phone, l.Source, l.LeadID, timestamp})
}

// HealthCriticalMessage builds the outbound health_score.critical body.
func HealthCriticalMessage(h HealthCritical) (Message, error) {
	return encode(OutboundHealthCritical, struct {
		Event          string `json:"event"`
		Email          string `json:"email"`
		BusinessName   string `json:"businessName"`
		Score          int    `json:"score"`
		Recommendation string `json:"recommendation"`
	}{OutboundHealthCritical, h.Email, h.BusinessName, h.Score, h.Recommendation})
}

// Payment is a payment-processor event: the fields we match, publish and forward, and the
// processor's own event object as it arrived.
type Payment struct {
	EventID           string
	Type              string
	CustomerID        string
	CustomerEmail     string
	ClientReferenceID string // what our checkout set on the session: the paying account's id
	Plan              string
	Status            string
	Amount            *int64
	AmountDue         *int64
	SubscriptionID    string
	InvoiceID         string
	CancelAtPeriodEnd *bool
	EndedAt           *time.Time
	NextAttempt       *time.Time
	Raw               json.RawMessage // the verified event object, byte for byte
}

// MatchedBy says how a payment event found its account.
type MatchedBy int

const (
	// ByCustomer: the processor's customer id, linked to the account at an earlier checkout.
	ByCustomer MatchedBy = iota
	// ByReference: the checkout's client_reference_id, the account id our checkout set.
	ByReference
	// ByEmail: an email the customer typed at checkout, or the processor's customer email.
	ByEmail
)

// Binds reports whether a match may link the event's customer id to the account for later
// events. An email typed at checkout proves nothing about who pays, so it never does: anyone
// could otherwise type an account's email and steer that account's plan with their own
// subscription's events.
func (m MatchedBy) Binds() bool { return m != ByEmail }

// Message builds the forwarded body: "event", the spec 6.1 key fields of every payment event at
// the top level in the processor's names and types (amounts in the smallest currency unit, times
// in Unix seconds; null when this event does not carry one), and the processor's event object
// unchanged under "processor_event", so nothing it sent is lost or re-encoded.
func (p Payment) Message() (Message, error) {
	return encode(p.Type, struct {
		Event             string          `json:"event"`
		ID                string          `json:"id"`
		CustomerEmail     *string         `json:"customer_email"`
		Plan              *string         `json:"plan"`
		Status            *string         `json:"status"`
		Amount            *int64          `json:"amount"`
		AmountDue         *int64          `json:"amount_due"`
		SubscriptionID    *string         `json:"subscription_id"`
		InvoiceID         *string         `json:"invoice_id"`
		CancelAtPeriodEnd *bool           `json:"cancel_at_period_end"`
		EndedAt           *int64          `json:"ended_at"`
		NextAttempt       *int64          `json:"next_attempt"`
		ProcessorEvent    json.RawMessage `json:"processor_event"`
	}{p.Type, p.EventID, nonEmpty(p.CustomerEmail), nonEmpty(p.Plan), nonEmpty(p.Status), p.Amount, p.AmountDue,
		nonEmpty(p.SubscriptionID), nonEmpty(p.InvoiceID), p.CancelAtPeriodEnd, unixOf(p.EndedAt), unixOf(p.NextAttempt), p.raw()})
}

// raw is the processor's event object, or null when there is none (a test's hand-built event).
func (p Payment) raw() json.RawMessage {
	if len(p.Raw) == 0 {
		return json.RawMessage("null")
	}
	return p.Raw
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func unixOf(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	u := t.Unix()
	return &u
}

func encode(event string, body any) (Message, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return Message{}, fmt.Errorf("encode %s message: %w", event, err)
	}
	return Message{Event: event, Body: raw}, nil
}
