// Package events carries domain events between services: a transactional outbox in the producer's
// schema, a relay that publishes outbox rows to Redis Streams (one stream per event type), and
// consumer groups (one per consuming service) whose handlers run in the same PostgreSQL transaction
// that records the event id as processed.
//
// Delivery is at-least-once: the relay may publish a row twice (Redis accepted it but the mark as
// published did not commit), and a consumer may see a message again (it died before XACK, or a
// handler failed). Exactly-once effects come from the idempotent consumer: the processed_events row
// and the handler's writes commit together, so a second delivery finds the row and skips the
// handler. Handlers must therefore keep their effects inside the transaction their context carries,
// or make external effects idempotent themselves. Order is not guaranteed across relay replicas or
// redeliveries; handlers must not depend on it.
package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"

	"github.com/bizassist/bizassist/libs/ids"
)

// Envelope is the wire form of every event; Data is the producer-documented payload.
type Envelope struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Version     int             `json:"version"`
	OccurredAt  time.Time       `json:"occurredAt"`
	AccountID   string          `json:"accountId"`
	Data        json.RawMessage `json:"data"`
	TraceParent string          `json:"traceparent,omitempty"`
	TraceState  string          `json:"tracestate,omitempty"`
}

// eventType keeps types usable as stream key segments: account.created, payment.invoice.paid.
var eventType = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)

// New builds a version-1 envelope for data, carrying the trace context of ctx so the consumer's
// span joins the producer's trace.
func New(ctx context.Context, typ, accountID string, data any) (Envelope, error) {
	if !eventType.MatchString(typ) {
		return Envelope{}, fmt.Errorf("event type %q must be dot-separated lower-case words", typ)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Envelope{}, fmt.Errorf("encode %s data: %w", typ, err)
	}
	carrier := propagation.MapCarrier{}
	otel.GetTextMapPropagator().Inject(ctx, carrier)
	return Envelope{
		ID:          ids.New("evt"),
		Type:        typ,
		Version:     1,
		OccurredAt:  time.Now().UTC().Truncate(time.Millisecond),
		AccountID:   accountID,
		Data:        raw,
		TraceParent: carrier.Get("traceparent"),
		TraceState:  carrier.Get("tracestate"),
	}, nil
}

// Decode unmarshals the payload into dst.
func (e Envelope) Decode(dst any) error {
	if len(e.Data) == 0 {
		return errors.New("event has no data")
	}
	if err := json.Unmarshal(e.Data, dst); err != nil {
		return fmt.Errorf("decode %s %s data: %w", e.Type, e.ID, err)
	}
	return nil
}

// Context returns ctx carrying the producer's trace context as the remote parent.
func (e Envelope) Context(ctx context.Context) context.Context {
	carrier := propagation.MapCarrier{}
	if e.TraceParent != "" {
		carrier.Set("traceparent", e.TraceParent)
	}
	if e.TraceState != "" {
		carrier.Set("tracestate", e.TraceState)
	}
	return otel.GetTextMapPropagator().Extract(ctx, carrier)
}

// streamKey names the stream of one event type.
func streamKey(prefix, typ string) string { return prefix + ":" + typ }
