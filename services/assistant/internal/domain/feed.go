package domain

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Feed limits (spec 2.13, 4.5 and 8).
const (
	FeedWindow      = 24 * time.Hour
	FeedSize        = 50
	TextPrefixChars = 40
	maxRawText      = 2000
)

// Modules are the platform modules a feed event may come from.
var Modules = []string{"Voice", "Recall", "Confirm", "Stars", "the service", "Chat", "Invoicing"}

// FeedEvent is one sanitized public feed entry. Only the rendered summary is kept: raw fields
// never reach storage.
type FeedEvent struct {
	Module    string
	EventType string
	Summary   string
	At        time.Time
}

// FieldError names the field of a feed event that was refused.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

type fieldKind int

const (
	kindText    fieldKind = iota // customer words: scrubbed, then a 40-character prefix
	kindRating                   // 1 to 5
	kindSeconds                  // 0 to a day
	kindMoney                    // whole currency units, bounded
	kindTopic                    // a chat topic, one of Topics
	// Labels: shown only as a value of their vocabulary (labelVocabularies), otherwise dropped.
	kindSource
	kindVertical
	kindChannel
	kindService
	kindSubject
)

var labelVocabularies = map[fieldKind]vocabulary{
	kindSource: leadSources, kindVertical: verticals, kindChannel: channels, kindService: services, kindSubject: subjects,
}

// template renders one event type from its allow-listed fields; any other field is refused.
type template struct {
	fields map[string]fieldKind
	render func(v map[string]string) string
}

func opt(v map[string]string, key, format string) string {
	if v[key] == "" {
		return ""
	}
	return fmt.Sprintf(format, v[key])
}

func quoted(v map[string]string, key, lead string) string {
	if v[key] == "" {
		return lead
	}
	return lead + ": “" + v[key] + "”"
}

var templates = map[string]map[string]template{
	"Voice": {
		"MissedCallDetected": {map[string]fieldKind{"vertical": kindVertical}, func(v map[string]string) string {
			return "Missed call detected" + opt(v, "vertical", " at a %s business") + "; a text-back went out"
		}},
		"CallAnswered": {map[string]fieldKind{"durationSec": kindSeconds}, func(v map[string]string) string {
			return "AI receptionist answered a call" + opt(v, "durationSec", " (%s)")
		}},
		"VoicemailTranscribed": {map[string]fieldKind{"text": kindText}, func(v map[string]string) string { return quoted(v, "text", "Voicemail transcribed") }},
	},
	"Recall": {
		"CustomerReplyReceived": {map[string]fieldKind{"text": kindText}, func(v map[string]string) string { return quoted(v, "text", "Customer replied") }},
		"ReminderSent":          {map[string]fieldKind{"channel": kindChannel}, func(v map[string]string) string { return "Recall reminder sent" + opt(v, "channel", " by %s") }},
		"CustomerReactivated":   {nil, func(map[string]string) string { return "A lapsed customer booked again" }},
	},
	"Confirm": {
		"AppointmentCreated":     {map[string]fieldKind{"service": kindService}, func(v map[string]string) string { return "Appointment booked" + opt(v, "service", " for %s") }},
		"AppointmentConfirmed":   {nil, func(map[string]string) string { return "Customer confirmed an appointment" }},
		"AppointmentRescheduled": {nil, func(map[string]string) string { return "Appointment rescheduled by text" }},
	},
	"Stars": {
		"ReviewRequested": {map[string]fieldKind{"channel": kindChannel}, func(v map[string]string) string { return "Review request sent" + opt(v, "channel", " by %s") }},
		"ReviewReceived": {map[string]fieldKind{"rating": kindRating}, func(v map[string]string) string {
			return "New " + opt(v, "rating", "%s-star ") + "review received"
		}},
	},
	"the service": {
		"LeadCaptured": {map[string]fieldKind{"source": kindSource, "vertical": kindVertical}, func(v map[string]string) string {
			return "New " + opt(v, "vertical", "%s ") + "lead captured" + opt(v, "source", " from %s")
		}},
		"ContactFormReceived": {map[string]fieldKind{"subject": kindSubject, "text": kindText}, func(v map[string]string) string {
			return quoted(v, "text", "Contact form received"+opt(v, "subject", " (%s)"))
		}},
	},
	"Chat": {
		"ChatConversation": {map[string]fieldKind{"topic": kindTopic}, func(v map[string]string) string {
			return "An owner asked the assistant about " + topicPhrase[Intent(v["topic"])]
		}},
	},
	"Invoicing": {
		"InvoiceSent":         {map[string]fieldKind{"amount": kindMoney}, func(v map[string]string) string { return "Invoice sent" + opt(v, "amount", " for $%s") }},
		"InvoicePaid":         {map[string]fieldKind{"amount": kindMoney}, func(v map[string]string) string { return "Invoice paid" + opt(v, "amount", " ($%s)") }},
		"PaymentReminderSent": {nil, func(map[string]string) string { return "Payment reminder sent" }},
	},
}

var topicPhrase = map[Intent]string{
	IntentNone: "their business", IntentGreeting: "what it can do", IntentHelp: "what it can do",
	IntentFindLeads: "finding new leads", IntentLeadsSheet: "their leads sheet", IntentHealth: "their health score",
	IntentUsage: "their plan usage", IntentChurn: "clients at risk of churning", IntentGrowth: "next growth steps",
	IntentConversation: "their business",
}

// EventTypes lists a module's event kinds, with a template or plain, for documentation and
// error messages.
func EventTypes(module string) []string {
	out := append([]string(nil), plainKinds[module]...)
	for t := range templates[module] {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// NewFeedEvent validates an event and renders its summary. The event kind is shown as it is, so
// it must be one of the module's fixed kinds: a kind with a template, or a plain kind that takes
// no fields and whose summary is the kind in words.
func NewFeedEvent(module, eventType string, at time.Time, fields map[string]any) (FeedEvent, error) {
	tmpls, ok := templates[module]
	if !ok {
		return FeedEvent{}, &FieldError{"module", "must be one of " + strings.Join(Modules, ", ")}
	}
	tmpl, known := tmpls[eventType]
	if !known {
		if !slices.Contains(plainKinds[module], eventType) {
			return FeedEvent{}, &FieldError{"event_type", "must be an event kind of " + module + ": " + strings.Join(EventTypes(module), ", ")}
		}
		tmpl = template{render: func(map[string]string) string { return words(eventType) }}
	}
	values := make(map[string]string, len(fields))
	for name, raw := range fields {
		kind, allowed := tmpl.fields[name]
		if !allowed {
			return FeedEvent{}, &FieldError{"fields." + name, fmt.Sprintf("is not a field of %s %s (allowed: %s)", module, eventType, fieldNames(tmpl))}
		}
		v, err := renderField(kind, raw)
		if err != nil {
			return FeedEvent{}, &FieldError{"fields." + name, err.Error()}
		}
		values[name] = v
	}
	summary := strings.Join(strings.Fields(tmpl.render(values)), " ")
	return FeedEvent{Module: module, EventType: eventType, Summary: summary, At: at.UTC().Truncate(time.Millisecond)}, nil
}

// WithoutCustomerText returns fields without those of an event kind that quote customer words,
// so that the summary is the kind and its labels alone.
func WithoutCustomerText(module, eventType string, fields map[string]any) map[string]any {
	tmpl := templates[module][eventType]
	out := make(map[string]any, len(fields))
	for name, v := range fields {
		if kind, ok := tmpl.fields[name]; !ok || kind != kindText {
			out[name] = v
		}
	}
	return out
}

// ChatExchanged is the feed event of one chat exchange about topic (an unknown topic is left out).
func ChatExchanged(topic Intent, at time.Time) (FeedEvent, error) {
	fields := map[string]any{}
	if Topics[topic] {
		fields["topic"] = string(topic)
	}
	return NewFeedEvent("Chat", "ChatConversation", at, fields)
}

func fieldNames(t template) string {
	if len(t.fields) == 0 {
		return "none"
	}
	names := make([]string, 0, len(t.fields))
	for n := range t.fields {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func renderField(kind fieldKind, raw any) (string, error) {
	vocab, isLabel := labelVocabularies[kind]
	if kind == kindText || kind == kindTopic || isLabel {
		s, ok := raw.(string)
		if !ok {
			return "", fmt.Errorf("must be a string")
		}
		if len(s) > maxRawText {
			return "", fmt.Errorf("must be at most %d bytes", maxRawText)
		}
		switch {
		case kind == kindText:
			return Prefix(s, TextPrefixChars), nil
		case isLabel:
			return vocab.lookup(s), nil // not a known value: dropped, never echoed
		case !Topics[Intent(s)]:
			return "", fmt.Errorf("must be a chat topic such as find_leads, health, usage, churn, growth")
		default:
			return s, nil
		}
	}
	n, ok := raw.(float64)
	if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
		return "", fmt.Errorf("must be a number")
	}
	switch kind {
	case kindRating:
		if n != math.Trunc(n) || n < 1 || n > 5 {
			return "", fmt.Errorf("must be an integer from 1 to 5")
		}
		return fmt.Sprint(int(n)), nil
	case kindSeconds:
		if n < 0 || n > 86400 {
			return "", fmt.Errorf("must be between 0 and 86400 seconds")
		}
		d := time.Duration(n) * time.Second
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60), nil
	default: // kindMoney
		if n < 0 || n > 99999 {
			return "", fmt.Errorf("must be between 0 and 99999")
		}
		return fmt.Sprint(int(math.Round(n))), nil
	}
}

// words turns "MissedCallDetected" into "Missed call detected".
func words(camel string) string {
	var b strings.Builder
	for i, r := range camel {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
