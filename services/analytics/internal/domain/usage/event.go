// Package usage holds the rules of usage events (what a valid event is) and of plan allowances
// (how used, limit and percentages are reported by the PQL check).
package usage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/ids"
)

// NamePattern is what a feature or action name looks like: lower-case snake case, 2-48 chars.
const NamePattern = `^[a-z][a-z0-9_]{1,47}$`

// MaxMetaBytes bounds meta, measured as its compact JSON encoding.
const MaxMetaBytes = 2048

var namePattern = regexp.MustCompile(NamePattern)

// Event is one recorded use of a feature.
type Event struct {
	id        string
	accountID string
	feature   string
	action    string
	count     int
	meta      json.RawMessage
	at        time.Time
}

// NewEvent validates a usage event logged through the API and gives it an id and the server time.
// meta, when present, must be a JSON object of at most MaxMetaBytes once compacted.
func NewEvent(accountID, feature, action string, meta json.RawMessage, now time.Time) (Event, error) {
	switch {
	case feature == "":
		return Event{}, apperr.MissingField("feature")
	case !namePattern.MatchString(feature):
		return Event{}, apperr.InvalidField("feature", "must match "+NamePattern)
	case action != "" && !namePattern.MatchString(action):
		return Event{}, apperr.InvalidField("action", "must match "+NamePattern)
	}
	compact, err := compactMeta(meta)
	if err != nil {
		return Event{}, err
	}
	return Event{id: ids.New("evt"), accountID: accountID, feature: feature, action: action, count: 1,
		meta: compact, at: now.UTC().Truncate(time.Millisecond)}, nil
}

// compactMeta returns meta re-encoded compactly, valid UTF-8 throughout (an unpaired surrogate
// escape becomes U+FFFD, which PostgreSQL's jsonb accepts), and checks the size of that encoding.
func compactMeta(meta json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(meta)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil, nil
	}
	if trimmed[0] != '{' {
		return nil, apperr.InvalidField("meta", "must be a JSON object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, trimmed); err != nil {
		return nil, apperr.InvalidField("meta", "must be a JSON object")
	}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, apperr.InvalidField("meta", "must be a JSON object")
	}
	if hasNUL(v) {
		return nil, apperr.InvalidField("meta", "must not contain the character U+0000")
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, apperr.InvalidField("meta", "must be a JSON object")
	}
	// Measured on the re-encoding, so "\u00e9" and a raw "é" weigh the same two bytes.
	compact := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
	if len(compact) > MaxMetaBytes {
		return nil, apperr.InvalidField("meta", "must be at most 2048 bytes as compact JSON")
	}
	return compact, nil
}

// hasNUL reports a U+0000 in any key or string of v; PostgreSQL cannot store one.
func hasNUL(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.ContainsRune(t, 0)
	case []any:
		for _, e := range t {
			if hasNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range t {
			if strings.ContainsRune(k, 0) || hasNUL(e) {
				return true
			}
		}
	}
	return false
}

// MaxReserveCount bounds one reservation; the largest real one is a 25-lead batch.
const MaxReserveCount = 1000

// NewReservation validates a reservation of count uses of a metered feature and makes it the
// usage event that records them, with its id and the server time.
func NewReservation(accountID, feature string, count int, action string, now time.Time) (Event, error) {
	if feature == "" {
		return Event{}, apperr.MissingField("feature")
	}
	f, err := ParseFeature(feature)
	if err != nil {
		return Event{}, err
	}
	switch {
	case count < 1 || count > MaxReserveCount:
		return Event{}, apperr.InvalidField("count", fmt.Sprintf("must be an integer from 1 to %d", MaxReserveCount))
	case action != "" && !namePattern.MatchString(action):
		return Event{}, apperr.InvalidField("action", "must match "+NamePattern)
	}
	return Event{id: ids.New("evt"), accountID: accountID, feature: string(f), action: action, count: count,
		at: now.UTC().Truncate(time.Millisecond)}, nil
}

// Recorded is a usage event reported by another service (usage.recorded); its id and time are
// the producer's. A count below 1 is taken as 1.
func Recorded(eventID, accountID, feature, action string, count int, at time.Time) Event {
	return Event{id: eventID, accountID: accountID, feature: feature, action: action, count: max(count, 1), at: at.UTC()}
}

func (e Event) ID() string            { return e.id }
func (e Event) AccountID() string     { return e.accountID }
func (e Event) Feature() string       { return e.feature }
func (e Event) Action() string        { return e.action }
func (e Event) Count() int            { return e.count }
func (e Event) Meta() json.RawMessage { return e.meta }
func (e Event) At() time.Time         { return e.at }

// ValidName reports whether s is a valid feature or action name.
func ValidName(s string) bool { return namePattern.MatchString(s) }
