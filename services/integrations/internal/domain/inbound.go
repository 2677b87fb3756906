// Package domain holds the integrations rules that need no I/O: what an inbound event may carry,
// what a subscription may point at, which addresses a delivery may dial, how a delivery outcome is
// judged and how webhook secrets look.
package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bizassist/bizassist/libs/apperr"
)

// InboundEvent names an event an integrator may push to POST /api/ext-webhook (spec 2.11).
type InboundEvent string

const (
	InboundNewLead     InboundEvent = "new_lead"
	InboundNewClient   InboundEvent = "new_client"
	InboundContactForm InboundEvent = "contact_form"
)

// MaxFieldLength bounds each inbound field so one event cannot bloat the inbox or a leads sheet.
const MaxFieldLength = 4000

// Bounds of the extra fields a sender may add to an event: forms and automation tools send more
// than spec 2.11 lists, and what they send is kept, within these.
const (
	MaxExtras          = 20
	MaxExtraKeyLength  = 64
	MaxExtraValueChars = 1000
	// MaxExtraDepth bounds the nesting of an object or array extra ({"a":[1]} is 2 deep).
	MaxExtraDepth = 4
)

type fieldSpec struct{ required, optional []string }

var inboundFields = map[InboundEvent]fieldSpec{
	InboundNewLead:     {required: []string{"name", "email"}, optional: []string{"phone", "source", "notes"}},
	InboundNewClient:   {required: []string{"businessName", "email"}, optional: []string{"ownerName", "phone", "plan"}},
	InboundContactForm: {required: []string{"name", "email"}, optional: []string{"phone", "subject", "message"}},
}

// InboundEvents lists the accepted inbound event names in a stable order.
func InboundEvents() []InboundEvent {
	return []InboundEvent{InboundNewLead, InboundNewClient, InboundContactForm}
}

// Inbound is a validated inbound event: its name, its spec 2.11 fields (event excluded) and the
// sender's extra fields.
type Inbound struct {
	Event  InboundEvent
	Fields map[string]string
	Extras map[string]string
}

// ParseInbound validates a decoded request body against spec 2.11: a known event, every required
// field present and non-empty, every spec'd value a string. Other fields are the sender's extras:
// strings, numbers and booleans are kept as text, objects and arrays as their compact JSON text (at
// most MaxExtras, each bounded in length and depth), null is absent; an extra is never a reason to
// refuse the event unless it passes a bound.
func ParseInbound(body map[string]json.RawMessage) (Inbound, error) {
	rawEvent, ok := body["event"]
	if !ok {
		return Inbound{}, apperr.MissingField("event")
	}
	name, ok := stringOf(rawEvent)
	if !ok {
		return Inbound{}, notAString("event")
	}
	event := InboundEvent(name)
	spec, known := inboundFields[event]
	if !known {
		return Inbound{}, apperr.InvalidField("event", "must be one of new_lead, new_client, contact_form")
	}
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	slices.Sort(keys) // report the same field first every time
	fields := make(map[string]string, len(body)-1)
	extras := map[string]string{}
	for _, k := range keys {
		if k == "event" {
			continue
		}
		if !slices.Contains(spec.required, k) && !slices.Contains(spec.optional, k) {
			if err := addExtra(extras, k, body[k]); err != nil {
				return Inbound{}, err
			}
			continue
		}
		v, ok := stringOf(body[k])
		if !ok {
			return Inbound{}, notAString(k)
		}
		v = strings.TrimSpace(v)
		if utf8.RuneCountInString(v) > MaxFieldLength {
			return Inbound{}, apperr.InvalidField(k, fmt.Sprintf("must be at most %d characters", MaxFieldLength))
		}
		fields[k] = v
	}
	for _, k := range spec.required {
		if fields[k] == "" {
			return Inbound{}, apperr.MissingField(k)
		}
	}
	if addr, err := mail.ParseAddress(fields["email"]); err != nil || addr.Address != fields["email"] {
		return Inbound{}, apperr.InvalidField("email", "must be a plain email address such as jane@example.com")
	}
	return Inbound{Event: event, Fields: fields, Extras: extras}, nil
}

// addExtra keeps one extra field as text, within the bounds.
func addExtra(extras map[string]string, k string, raw json.RawMessage) error {
	v, ok := scalarText(raw)
	if !ok {
		nested, depth, isNested := nestedText(raw)
		if !isNested {
			return nil // null: absent
		}
		if depth > MaxExtraDepth {
			return apperr.InvalidField(k, fmt.Sprintf("an extra field's objects and arrays may nest at most %d deep", MaxExtraDepth))
		}
		v = nested
	}
	switch {
	case len(extras) == MaxExtras:
		return apperr.InvalidField(k, fmt.Sprintf("at most %d fields beyond those of the event are kept", MaxExtras))
	case k == "" || utf8.RuneCountInString(k) > MaxExtraKeyLength || strings.ContainsFunc(k, unicode.IsControl):
		return apperr.InvalidField(k, fmt.Sprintf("an extra field's name must be 1-%d printable characters", MaxExtraKeyLength))
	case utf8.RuneCountInString(v) > MaxExtraValueChars:
		return apperr.InvalidField(k, fmt.Sprintf("an extra field must be at most %d characters", MaxExtraValueChars))
	}
	extras[k] = v
	return nil
}

// scalarText is a JSON string's value, or a number's or boolean's JSON text.
func scalarText(raw json.RawMessage) (string, bool) {
	if s, ok := stringOf(raw); ok {
		return strings.TrimSpace(s), true
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v.(type) {
	case float64, bool:
		return string(bytes.TrimSpace(raw)), true
	}
	return "", false
}

// nestedText is an object's or array's compact JSON text and its nesting depth; false for
// anything else.
func nestedText(raw json.RawMessage) (string, int, bool) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return "", 0, false
	}
	var buf bytes.Buffer
	if json.Compact(&buf, trimmed) != nil {
		return "", 0, false
	}
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range buf.Bytes() {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return buf.String(), deepest, true
}

// stringOf decodes a JSON string; null, numbers and the rest are not strings.
func stringOf(raw json.RawMessage) (string, bool) {
	var v string
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '"' || json.Unmarshal(trimmed, &v) != nil {
		return "", false
	}
	return v, true
}

func notAString(field string) error {
	return &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeInvalidType, Field: field,
		Message: field + ": must be a string"}
}

// Sample returns a minimal payload for event: the event name plus its required fields.
func Sample(event InboundEvent) map[string]string {
	s := map[string]string{"event": string(event), "email": "jane.doe@example.com"}
	switch event {
	case InboundNewClient:
		s["businessName"] = "Doe Plumbing LLC"
	default:
		s["name"] = "Jane Doe"
	}
	return s
}
