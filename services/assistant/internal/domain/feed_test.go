package domain_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func TestNewFeedEventRendersTemplates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		module, eventType string
		fields            map[string]any
		want              string
	}{
		{"Voice", "MissedCallDetected", map[string]any{"vertical": "plumbing"}, "Missed call detected at a plumbing business; a text-back went out"},
		{"Recall", "CustomerReplyReceived", map[string]any{"text": "Yes Thursday works, call me on 512-555-0134 - Jane"}, "Customer replied: “Yes Thursday works, call me on [number]”"},
		{"Stars", "ReviewReceived", map[string]any{"rating": 5.0}, "New 5-star review received"},
		{"Invoicing", "InvoicePaid", map[string]any{"amount": 240.4}, "Invoice paid ($240)"},
		{"Chat", "ChatConversation", map[string]any{"topic": "churn"}, "An owner asked the assistant about clients at risk of churning"},
		{"the service", "LeadCaptured", map[string]any{"source": "organic"}, "New lead captured from organic"},
		{"the service", "LeadCaptured", map[string]any{"source": "Jane Roe"}, "New lead captured"},
		{"the service", "LeadCaptured", map[string]any{"source": "catalog", "vertical": "Plumbers"}, "New plumbing lead captured from catalog"},
		{"Confirm", "AppointmentCreated", map[string]any{"service": "Dental-Cleaning"}, "Appointment booked for a dental cleaning"},
		{"Stars", "ReviewRequested", map[string]any{"channel": "SMS"}, "Review request sent by text"},
		{"the service", "ContactFormReceived", map[string]any{"subject": "Quote", "text": "Can you fix a leaking roof this week?"},
			"Contact form received (quote request): “Can you fix a leaking roof this week?”"},
		{"the service", "ContactFormReceived", map[string]any{"subject": "Quote for Rosa", "text": "Rosa Diaz"}, "Contact form received"},
		{"Recall", "CustomerReplyReceived", map[string]any{"text": "Zyx here. Can you come earlier?"}, "Customer replied: “… here. Can you come earlier?”"},
		{"Confirm", "NoShowPrevented", nil, "No show prevented"},
	}
	for _, tc := range cases {
		ev, err := domain.NewFeedEvent(tc.module, tc.eventType, now, tc.fields)
		require.NoError(t, err, tc.eventType)
		require.Equal(t, tc.want, ev.Summary)
		require.Equal(t, now, ev.At)
	}
}

func TestNewFeedEventRefusesWhatItCannotRender(t *testing.T) {
	t.Parallel()
	cases := []struct {
		module, eventType string
		fields            map[string]any
		field             string
	}{
		{"Marketing", "MissedCallDetected", nil, "module"},
		{"Voice", "missed call", nil, "event_type"},
		{"Voice", "ZyxCalled", nil, "event_type"},
		{"Voice", "MissedCallDetected", map[string]any{"callerPhone": "+15125550134"}, "fields.callerPhone"},
		{"Confirm", "NoShowPrevented", map[string]any{"text": "hi"}, "fields.text"},
		{"Stars", "ReviewReceived", map[string]any{"rating": 6.0}, "fields.rating"},
		{"Recall", "CustomerReplyReceived", map[string]any{"text": 12.0}, "fields.text"},
		{"Chat", "ChatConversation", map[string]any{"topic": "secrets"}, "fields.topic"},
	}
	for _, tc := range cases {
		_, err := domain.NewFeedEvent(tc.module, tc.eventType, now, tc.fields)
		var fe *domain.FieldError
		require.ErrorAs(t, err, &fe, tc.field)
		require.Equal(t, tc.field, fe.Field)
	}
}

// The seeded property: payloads stuffed with personal data in many shapes never show any of it.
var (
	firstNames = []string{"John", "Mary", "Jennifer", "Carlos", "Priya", "Olga", "Zorblax", "Quentavious"}
	lastNames  = []string{"Smith", "Garcia", "Nguyen", "Okonkwo", "Vandermeer", "Przybylski"}
	phones     = []string{"+1 (512) 555-0134", "512-555-0134", "512.555.0134", "5125550134", "(512) 555 0134",
		"+15125550134", "1-512-555-0134", "+44 20 7946 0958", "020 7946 0958", "555-0134", "+49 30 901820",
		"+1 512 555 0134", "512 555 0134", "+33 1 42 68 53 00", "(512)555-0134"}
	streets   = []string{"Oak Street", "Elm St", "Sunset Blvd", "Congress Ave", "Lakeview Drive", "Mill Road", "Cedar Ln"}
	domains   = []string{"gmail.com", "acme-plumbing.com", "example.org", "bizassist.io"}
	tenantIDs = []string{"acc_01JD3X8Z9Q4W5E6R7T8Y9U0I1O", "ses_01JD3X8Z9Q4W5E6R7T8Y9U0I1P", "hook_9f8e7d6c",
		"3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b", "tenant_4471"}
	fillers = []string{"hi", "yes please", "can you call me back", "running late", "thanks", "ok", "see you then", "my number is", "email me at"}
)

func pii(r *rand.Rand) (text string, secrets []string) {
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	first, last := pick(firstNames), pick(lastNames)
	email := strings.ToLower(first) + "." + strings.ToLower(last) + "@" + pick(domains)
	phone := pick(phones)
	addr := fmt.Sprintf("%d %s", 10+r.IntN(9000), pick(streets))
	tenant := pick(tenantIDs)
	parts := []string{
		"this is " + first + " " + last, "call " + phone, email, "I live at " + addr,
		"account " + tenant, pick(fillers), "ask for Mr. " + last, "Thanks, " + first,
		"zip " + fmt.Sprint(10000+r.IntN(89999)), first + " here", last + " called",
	}
	r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	n := 1 + r.IntN(len(parts))
	text = strings.Join(parts[:n], pick([]string{", ", ". ", " - ", " "}))
	return text, []string{first, last, email, phone, addr, tenant, strings.Split(email, "@")[1]}
}

var (
	digitRun   = regexp.MustCompile(`\p{Nd}{3,}`)
	identifier = regexp.MustCompile(`[\p{L}\p{Nd}]{2,}_[\p{L}\p{Nd}]{3,}`)
)

func TestFeedNeverShowsPersonalDataSeeded(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(42, 2026))
	textEvents := [][2]string{{"Recall", "CustomerReplyReceived"}, {"Voice", "VoicemailTranscribed"}, {"the service", "ContactFormReceived"}}
	for i := range 600 {
		text, secrets := pii(r)
		te := textEvents[i%len(textEvents)]
		for _, ev := range []struct {
			module, eventType string
			fields            map[string]any
		}{
			{te[0], te[1], map[string]any{"text": text}},
			{"the service", "LeadCaptured", map[string]any{"source": text, "vertical": text}},
			{"Confirm", "AppointmentCreated", map[string]any{"service": text}},
		} {
			got, err := domain.NewFeedEvent(ev.module, ev.eventType, now, ev.fields)
			require.NoError(t, err)
			assertClean(t, got.Summary, text, secrets)
		}
		// The prefix may cut, but only after scrubbing: no fragment of a phone survives.
		prefix := domain.Prefix(text, domain.TextPrefixChars)
		require.LessOrEqual(t, utf8.RuneCountInString(prefix), domain.TextPrefixChars)
	}
}

func assertClean(t *testing.T, summary, input string, secrets []string) {
	t.Helper()
	lower := strings.ToLower(summary)
	for _, s := range secrets {
		require.NotContains(t, lower, strings.ToLower(s), "input %q", input)
	}
	require.NotContains(t, summary, "@", "input %q", input)
	require.False(t, digitRun.MatchString(summary), "digits in %q from %q", summary, input)
}

func FuzzFeedScrub(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 30 {
		text, _ := pii(r)
		f.Add(text)
	}
	f.Add("ｊｏｈｎ＠ｅｘａｍｐｌｅ．ｃｏｍ ５１２５５５０１３４")
	f.Add("call ٥١٢٥٥٥٠١٣٤ now")
	f.Add("\x00\xff Jane\u200bDoe 12\u00a0Oak\tSt")
	f.Fuzz(func(t *testing.T, text string) {
		ev, err := domain.NewFeedEvent("Recall", "CustomerReplyReceived", now, map[string]any{"text": text})
		if err != nil {
			var fe *domain.FieldError
			require.ErrorAs(t, err, &fe) // only the over-long text is refused
			return
		}
		prefix := domain.Prefix(text, domain.TextPrefixChars)
		require.True(t, utf8.ValidString(ev.Summary))
		require.LessOrEqual(t, utf8.RuneCountInString(prefix), domain.TextPrefixChars)
		require.NotContains(t, ev.Summary, "@")
		require.NotContains(t, ev.Summary, "://")
		require.False(t, digitRun.MatchString(ev.Summary), "digits in %q", ev.Summary)
		require.False(t, identifier.MatchString(prefix), "identifier in %q", prefix)
		require.False(t, denseDigits(ev.Summary), "7 digits within 40 characters in %q", ev.Summary)
	})
}

// denseDigits reports 7 or more digits within some 40 characters of s.
func denseDigits(s string) bool {
	var at []int
	for i, r := range []rune(s) {
		if unicode.IsDigit(r) {
			at = append(at, i)
		}
	}
	for j := 0; j+6 < len(at); j++ {
		if at[j+6]-at[j] < 40 {
			return true
		}
	}
	return false
}

func TestDemoFeedIsRecentAndNewestFirst(t *testing.T) {
	t.Parallel()
	demo := domain.DemoFeed(now)
	require.NotEmpty(t, demo)
	for i, ev := range demo {
		require.Contains(t, domain.Modules, ev.Module)
		require.True(t, ev.At.After(now.Add(-domain.FeedWindow)))
		if i > 0 {
			require.True(t, ev.At.Before(demo[i-1].At))
		}
	}
}
