package ports

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
)

// maxEventText bounds the customer text taken from an event before it is scrubbed.
const maxEventText = 2000

// EventHandlers turns events of our own services into public feed events: a captured lead and a
// contact form (a chat exchange is recorded with the turn itself). Only allow-listed fields go to
// the feed templates. Recording is idempotent by the source event id, so it runs in its own
// transaction.
func EventHandlers(record *app.RecordFeedEvent) map[string]events.Handler {
	return map[string]events.Handler{
		"lead.written": func(ctx context.Context, _ pgx.Tx, e events.Envelope) error {
			var d struct {
				Source string `json:"source"`
			}
			if err := e.Decode(&d); err != nil {
				return err
			}
			return record.Handle(ctx, e.ID, "the service", "LeadCaptured", e.OccurredAt, fields("source", d.Source))
		},
		"inbound.contact_form": func(ctx context.Context, _ pgx.Tx, e events.Envelope) error {
			var d struct {
				Subject string `json:"subject"`
				Message string `json:"message"`
			}
			if err := e.Decode(&d); err != nil {
				return err
			}
			// The subject is a label (shown only when it is a known subject), the message free text.
			return record.Handle(ctx, e.ID, "the service", "ContactFormReceived", e.OccurredAt,
				fields("subject", clip(d.Subject), "text", clip(d.Message)))
		},
	}
}

// fields keeps only non-empty values, so that an absent field renders as absent.
func fields(kv ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		if strings.TrimSpace(kv[i+1]) != "" {
			m[kv[i]] = kv[i+1]
		}
	}
	return m
}

func clip(s string) string {
	if len(s) <= maxEventText {
		return s
	}
	return strings.ToValidUTF8(s[:maxEventText], "")
}
