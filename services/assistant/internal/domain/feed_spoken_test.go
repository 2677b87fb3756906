package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// The leaks seen on the live feed (issue 24, item 2): personal data written in words, which the
// dictionary let through word by word.
func TestFeedLeaksWrittenInWords(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text  string
		leaks []string
		want  string // the whole quote, when something of the text is kept
	}{
		{text: "five twelve five five five twelve twenty", leaks: []string{"five", "twelve", "twenty"}},
		{text: "my cell is 51 25 55", leaks: []string{"51", "25", "55"}, want: "my cell is [number]"},
		{text: "river at first point net", leaks: []string{"river", "first", "net"}},
		{text: "write to river at first period net", leaks: []string{"river", "first", "net"}, want: "write to [email]"},
		{text: "we are at twelve high road, second floor", leaks: []string{"twelve", "high"}, want: "we are at [address], second floor"},
		{text: "ten north station road, flat two", leaks: []string{"ten", "north", "station", "two"}},
		{text: "jane doe here call me", leaks: []string{"jane", "doe"}, want: "… here call me"},
		{text: "river [at] first (dot) net", leaks: []string{"river", "first"}},
		{text: "write to river {at} first [period] net", leaks: []string{"river", "first"}, want: "write to [email]"},
		{text: "email river @ first . net thanks", leaks: []string{"river", "first"}, want: "email [email] thanks"},
		{text: "call oh two oh seven nine four six double one two three", leaks: []string{"oh", "two", "seven", "double", "one"}, want: "call [number]"},
		{text: "zero six, twelve, thirty-four, fifty-six, seventy-eight", leaks: []string{"six", "twelve", "thirty", "fifty", "seventy"}},
		{text: "my number is five hundred and twelve, triple five, 01 99", leaks: []string{"five", "hundred", "twelve", "triple", "01", "99"},
			want: "my number is [number]"},
		{text: "Hi, this is River Field, the sink is leaking", leaks: []string{"river", "field"}, want: "Hi, this is …, the sink is leaking"},
		{text: "my name is water, call back today", leaks: []string{"water"}, want: "my name is …, call back today"},
		// issue 37, item 10: a number in words that sound like digits.
		{text: "won too won ate ate ate for", leaks: []string{"won", "too", "ate", "for"}},
		{text: "call won to won, ate ate ate, fore tree", leaks: []string{"won", "ate", "fore", "tree"}, want: "call [number]"},
		{text: "text five won two ate sicks nein for", leaks: []string{"five", "won", "ate", "sicks", "nein"}, want: "text [number]"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			ev, err := domain.NewFeedEvent("the service", "ContactFormReceived", now, map[string]any{"text": tc.text})
			require.NoError(t, err)
			words := summaryWords(ev.Summary)
			for _, leak := range tc.leaks {
				require.False(t, words[leak], "%q in %q", leak, ev.Summary)
			}
			want := "Contact form received"
			if tc.want != "" {
				want += ": “" + tc.want + "”"
			}
			require.Equal(t, want, ev.Summary)
		})
	}
}

// Ordinary customer text still reads well: numbers that cannot carry a phone number, "at", "point"
// and "here" in their everyday senses stay.
func TestFeedKeepsOrdinaryText(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"I need two or three quotes":               "I need two or three quotes",
		"can you come here on Monday at 3pm?":      "can you come here on Monday at 3pm?",
		"look at this point now, the sink is fine": "look at this point now, the sink is fine",
		"meet at noon. Thanks a lot":               "meet at noon. Thanks a lot",
		"one way or another, fix it by Friday":     "one way or another, fix it by Friday",
		"we have a flat roof and two dogs":         "we have a flat roof and two dogs",
		"please come here after 5":                 "please come here after 5",
		// Words that sound like digits are words until they make a number's worth of them.
		"I ate for two, then went to bed":     "I ate for two, then went to bed",
		"we won! Come to the shop for a tree": "we won! Come to the shop for a tree",
		"open 9 to 5, too busy for more":      "open 9 to 5, too busy for more",
	} {
		require.Equal(t, want, domain.Prefix(text, domain.TextPrefixChars), text)
		require.NotContains(t, strings.ToLower(domain.Scrub(text)), "[", text)
	}
}

// A sound-alike before a street is a word, not a house number: "to" is not eaten with the address.
func TestSoundAlikesAloneAreNoHouseNumber(t *testing.T) {
	t.Parallel()
	require.Equal(t, "come to our shop [address]", domain.Prefix("come to our shop on main street", domain.TextPrefixChars))
}
