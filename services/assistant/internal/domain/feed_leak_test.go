package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// The leaks found in the review (issue 10, item 4), through the feed's templates.
func TestFeedLeaksFoundInTheReview(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name              string
		module, eventType string
		fields            map[string]any
		leaks             []string
		want              string // the whole summary, when it is fixed
	}{
		{name: "a name as the lead source", module: "the service", eventType: "LeadCaptured",
			fields: map[string]any{"source": "zara khan"}, leaks: []string{"zara", "khan"}, want: "New lead captured"},
		{name: "a known lead source", module: "the service", eventType: "LeadCaptured",
			fields: map[string]any{"source": "Google_Ads"}, want: "New lead captured from google ads"},
		{name: "a business as the vertical", module: "Voice", eventType: "MissedCallDetected",
			fields: map[string]any{"vertical": "wong plumbing llc"}, leaks: []string{"wong", "llc"},
			want: "Missed call detected; a text-back went out"},
		{name: "a name as the channel", module: "Recall", eventType: "ReminderSent",
			fields: map[string]any{"channel": "ann lee"}, leaks: []string{"ann", "lee"}, want: "Recall reminder sent"},
		{name: "a spelled-out email", module: "the service", eventType: "ContactFormReceived",
			fields: map[string]any{"text": "write to jsmith84 at gmail com please"}, leaks: []string{"jsmith", "84", "gmail"}},
		{name: "a dotted spelled-out email", module: "the service", eventType: "ContactFormReceived",
			fields: map[string]any{"text": "mail j dot smith at gmail dot com"}, leaks: []string{"smith", "gmail"}},
		{name: "a phone in single digits", module: "the service", eventType: "ContactFormReceived",
			fields: map[string]any{"text": "call 5 1 2, 5 5 5, 0 1 9 9 today"}, leaks: []string{"5", "1", "2", "0", "9"}},
		{name: "a phone in pairs", module: "the service", eventType: "ContactFormReceived",
			fields: map[string]any{"text": "my cell 51,25,55,01,99 ok"}, leaks: []string{"51", "25", "55", "01", "99"}},
		{name: "a phone in words", module: "Recall", eventType: "CustomerReplyReceived",
			fields: map[string]any{"text": "five one two five five five zero one nine nine"}, leaks: []string{"five", "nine", "zero"}},
		{name: "lower-case names", module: "Recall", eventType: "CustomerReplyReceived",
			fields: map[string]any{"text": "hi it is zara khan, ask maria lopez"}, leaks: []string{"zara", "khan", "maria", "lopez"}},
		{name: "a lower-case business", module: "the service", eventType: "ContactFormReceived",
			fields: map[string]any{"text": "quote for wong plumbing llc"}, leaks: []string{"wong", "plumbing", "llc"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := domain.NewFeedEvent(tc.module, tc.eventType, now, tc.fields)
			require.NoError(t, err)
			for _, leak := range tc.leaks {
				require.NotContains(t, strings.ToLower(ev.Summary), leak, "summary %q", ev.Summary)
			}
			if tc.want != "" {
				require.Equal(t, tc.want, ev.Summary)
			}
		})
	}
}

// An event kind is rendered as is, so only the fixed kinds are accepted.
func TestFeedRefusesEventKindsOutsideTheVocabulary(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"ZaraKhanCalled", "WongPlumbingBooked"} {
		_, err := domain.NewFeedEvent("Voice", kind, now, nil)
		var fe *domain.FieldError
		require.ErrorAs(t, err, &fe, kind)
		require.Equal(t, "event_type", fe.Field)
		require.NotContains(t, fe.Msg, kind, "the refused value is not echoed")
	}
	ev, err := domain.NewFeedEvent("Confirm", "NoShowPrevented", now, nil)
	require.NoError(t, err)
	require.Equal(t, "No show prevented", ev.Summary)
}
