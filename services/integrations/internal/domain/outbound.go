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

// Payment is a payment-processor event reduced to the fields we forward and publish.
type Payment struct {
	EventID           string
	Type              string
	CustomerID        string
	CustomerEmail     string
	Plan              string
	Status            string
	Amount            *int64
	AmountDue         *int64
	SubscriptionID    string
	InvoiceID         string
	CancelAtPeriodEnd *bool
	EndedAt           *time.Time
	NextAttempt       *time.Time
}

// Message builds the forwarded body: "event" plus the spec 6.1 fields (snake_case, as the
// processor names them) that this event carries.
func (p Payment) Message() (Message, error) {
	return encode(p.Type, struct {
		Event             string  `json:"event"`
		CustomerEmail     string  `json:"customer_email,omitempty"`
		Plan              string  `json:"plan,omitempty"`
		Status            string  `json:"status,omitempty"`
		Amount            *int64  `json:"amount,omitempty"`
		AmountDue         *int64  `json:"amount_due,omitempty"`
		SubscriptionID    string  `json:"subscription_id,omitempty"`
		InvoiceID         string  `json:"invoice_id,omitempty"`
		CancelAtPeriodEnd *bool   `json:"cancel_at_period_end,omitempty"`
		EndedAt           *string `json:"ended_at,omitempty"`
		NextAttempt       *string `json:"next_attempt,omitempty"`
	}{p.Type, p.CustomerEmail, p.Plan, p.Status, p.Amount, p.AmountDue, p.SubscriptionID, p.InvoiceID,
		p.CancelAtPeriodEnd, OptionalTime(p.EndedAt), OptionalTime(p.NextAttempt)})
}

// OptionalTime formats t as a payload timestamp, or nil when there is no time.
func OptionalTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := isotime.Format(*t)
	return &s
}

func encode(event string, body any) (Message, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return Message{}, fmt.Errorf("encode %s message: %w", event, err)
	}
	return Message{Event: event, Body: raw}, nil
}
