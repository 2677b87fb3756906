package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/require"
)

// The public feed (issue 24, items 2 and 3): personal data written in words never shows, and a
// self-registered account can put neither its text nor more than its share onto the feed.
// Source addresses: 127.0.24.2x.

// feedShare is the assistant's bound on one account's events among the 50 shown (domain.FeedShare).
const feedShare = 5

// feedSince polls the public feed until cond holds for its entries stamped at or after since, and
// returns them. The feed is cached for 60 s; seeding an event clears the cache, so each poll seeds
// a plain one (it belongs to no account and quotes nothing) and then reads.
func feedSince(t *testing.T, s *Stack, c *Client, since time.Time, what string, cond func([]string) bool) []string {
	t.Helper()
	admin := http.Header{"x-agent-admin": {s.Get(t, "ADMIN_SECRET")}}
	seed := map[string]any{"events": []map[string]any{{"module": "Confirm", "event_type": "NoShowPrevented"}}}
	var got []string
	require.Eventually(t, func() bool {
		c.Do(t, http.MethodPost, "/api/agent-brain-seed", "", seed, admin).Expect(t, http.StatusCreated)
		f := c.Do(t, http.MethodGet, "/api/agent-brain-public-feed", "", nil).Expect(t, http.StatusOK)
		got = nil
		for _, e := range f.JSON["events"].([]any) {
			ev := e.(map[string]any)
			ts, err := time.Parse(time.RFC3339Nano, ev["ts"].(string))
			require.NoError(t, err)
			if !ts.Before(since) {
				got = append(got, ev["summary"].(string))
			}
		}
		return cond(got)
	}, 90*time.Second, 2*time.Second, "waiting for %s in the public feed", what)
	return got
}

// postContactForm sends a contact form through the inbound webhook. Each goes with its own
// Idempotency-Key: integrations takes the same fields within 24 hours for a repeated delivery.
func postContactForm(t *testing.T, c *Client, secret, subject, message string) {
	t.Helper()
	form := map[string]string{"event": "contact_form", "name": "Jane Doe", "email": "river@first.net", "subject": subject, "message": message}
	headers := extSecret(secret)
	headers.Set("Idempotency-Key", "e2e-feed-"+uniqueEmail(t))
	r := c.Do(t, http.MethodPost, "/api/ext-webhook", "", form, headers).Expect(t, http.StatusOK)
	require.Equal(t, true, r.JSON["processed"], "%s", r.Raw)
}

func TestSecurityFeedShowsNoPersonalDataWrittenInWords(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.24.21")
	since := time.Now().UTC().Truncate(time.Millisecond)
	// The growth demo account is on a paid plan: its customers' words are quoted, scrubbed.
	secret := s.Get(t, "EXT_SECRET")
	sent := map[string]string{
		"callback request": "call five twelve five five five twelve twenty, twelve high road, the roof is leaking again since Monday",
		"question":         "jane doe here, write to river at first point net, the roof is leaking again since Monday",
		"booking":          "my cell is 51 25 55, ten north station road, flat two, the roof is leaking again",
	}
	for subject, message := range sent {
		postContactForm(t, c, secret, subject, message)
	}
	got := feedSince(t, s, c, since, "the three contact forms", func(summaries []string) bool {
		n := 0
		for _, sum := range summaries {
			for subject := range sent {
				if strings.HasPrefix(sum, "Contact form received ("+subject+")") {
					n++
				}
			}
		}
		return n == len(sent)
	})
	shown := strings.ToLower(strings.Join(got, "\n"))
	require.Contains(t, shown, "contact form received (question): “… here, write to [email], the roof is”")
	for _, leak := range []string{"five", "twelve", "twenty", "51", "25", "55", "river", "first", "point", "net", "high", "north",
		"station", "ten", "two", "jane", "doe"} {
		require.NotContains(t, words(shown), leak, "in %q", got)
	}
}

func TestSecurityOneAccountCannotFillTheFeed(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.24.22")
	// A self-registered free account with its own inbound secret.
	email := uniqueEmail(t)
	r := c.Do(t, http.MethodPost, "/api/accounts", "", map[string]string{
		"email": email, "password": "e2e feed spam password", "businessName": "E2E Feed"}).Expect(t, http.StatusCreated)
	token := r.JSON["token"].(string)
	var secret string
	eventually(t, "integrations to know the new account", func() bool {
		r := c.Do(t, http.MethodPost, "/api/ext-webhook/secret/rotate", token, nil)
		secret, _ = r.JSON["secret"].(string)
		return r.Status == http.StatusOK && secret != ""
	})
	since := time.Now().UTC().Truncate(time.Millisecond)
	for range 3 * feedShare {
		postContactForm(t, c, secret, "partnership", "free money today, reply now")
	}
	// The growth demo account's form goes last on the same stream: once it shows, the spam was consumed.
	marker := "the gutter is broken again, can you come on Friday"
	postContactForm(t, c, s.Get(t, "EXT_SECRET"), "quote", marker)
	got := feedSince(t, s, c, since, "the growth account's form after the spam", func(summaries []string) bool {
		return strings.Contains(strings.Join(summaries, "\n"), "the gutter is broken")
	})
	spam := 0
	for _, sum := range got {
		require.NotContains(t, sum, "money", "a new free account's text was quoted")
		if sum == "Contact form received (partnership)" {
			spam++
		}
	}
	require.Equal(t, feedShare, spam, "one account's share of the feed: %q", got)
}

// words splits s into its lower-case words and numbers.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
