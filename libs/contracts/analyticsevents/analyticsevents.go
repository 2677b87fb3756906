// Package analyticsevents is analytics' event contract (see package contracts).
package analyticsevents

import "github.com/bizassist/bizassist/libs/isotime"

// Event types of analytics' contract.
const (
	// HealthCritical is published once per entry of a client account into the critical tier; the
	// envelope's accountId is the client's owner.
	HealthCritical = "health.critical"
	// UsageRecorded is how a service may report use to analytics (analytics stores its own
	// log-usage directly, and metered features reserve instead, so no service publishes it today;
	// analytics still consumes it).
	UsageRecorded = "usage.recorded"
)

// HealthCriticalData is the payload of health.critical.
type HealthCriticalData struct {
	ClientAccountID string       `json:"clientAccountId"`
	Email           string       `json:"email"`
	BusinessName    string       `json:"businessName"`
	Score           int          `json:"score"`
	Recommendation  string       `json:"recommendation"`
	At              isotime.Time `json:"at"`
}

// UsageRecordedData is the payload of usage.recorded. EventID identifies the use (default: the
// envelope's id) and AccountID the user (default: the envelope's account); At defaults to when the
// event occurred.
type UsageRecordedData struct {
	EventID   string       `json:"eventId,omitempty"`
	AccountID string       `json:"accountId,omitempty"`
	Feature   string       `json:"feature"`
	Action    string       `json:"action,omitempty"`
	Count     int          `json:"count"`
	At        isotime.Time `json:"at"`
}

// HealthScored is published whenever an account's health score or tier changes (the moments
// analytics keeps in its history); identity keeps the latest for the owner's client list.
const HealthScored = "health.scored"

// HealthScoredData is the payload of health.scored.
type HealthScoredData struct {
	AccountID string       `json:"accountId"`
	Score     int          `json:"score"`
	Tier      string       `json:"tier"`
	At        isotime.Time `json:"at"`
}
