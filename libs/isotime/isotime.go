// Package isotime is the one way bizassist writes a time in responses and event payloads:
// ISO 8601 in UTC with milliseconds, e.g. 2026-11-21T20:45:00.000Z.
package isotime

import (
	"bytes"
	"fmt"
	"time"
)

// Layout is the time.Format layout of a bizassist timestamp.
const Layout = "2006-01-02T15:04:05.000Z"

// Format writes t in UTC with milliseconds.
func Format(t time.Time) string { return t.UTC().Format(Layout) }

// Time is a time field of an event payload (or any JSON body): it marshals as Format writes it,
// and unmarshals any RFC 3339 time (other precisions and offsets too, so payloads written before
// the format was fixed still decode) as UTC. The zero Time marshals as null; null and "" unmarshal
// to the zero Time.
type Time struct{ time.Time }

// Of wraps t.
func Of(t time.Time) Time { return Time{t} }

// Or returns t's time, or fallback when t is zero (a payload that left the field out).
func (t Time) Or(fallback time.Time) time.Time {
	if t.IsZero() {
		return fallback
	}
	return t.Time
}

func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + Format(t.Time) + `"`), nil
}

func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) || bytes.Equal(b, []byte(`""`)) {
		*t = Time{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("isotime: %s is not a JSON string", b)
	}
	parsed, err := time.Parse(time.RFC3339Nano, string(b[1:len(b)-1]))
	if err != nil {
		return fmt.Errorf("isotime: %w", err)
	}
	*t = Time{parsed.UTC()}
	return nil
}
