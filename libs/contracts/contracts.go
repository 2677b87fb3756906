// Package contracts holds the event contracts of bizassist's producers, one package per producing
// service (identityevents, leadsevents, integrationsevents, analyticsevents): the event type names
// it publishes and the payload of each. The producer builds its payloads from these types and
// every consumer decodes into them, so a payload is declared once. They live in the libs module
// because a service may not import another service; only the producer changes its package, and
// only additively (new fields, new types): field names on the wire never change. Time fields are
// isotime.Time, ISO 8601 UTC with milliseconds.
package contracts

// Event is one event a use case publishes through its outbox port: a type of the producer's
// contract package, the account the envelope names, and the payload (a struct of that package).
type Event struct {
	Type      string
	AccountID string
	Data      any
}
