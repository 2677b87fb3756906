package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The assistant through the ingress with the demo accounts. Source addresses: 127.0.3.x.

func chatTurn(t *testing.T, c *Client, token string, body map[string]any) *Response {
	t.Helper()
	r := c.Do(t, http.MethodPost, "/api/chat", token, body).Expect(t, http.StatusOK)
	require.ElementsMatch(t, []string{"ok", "reply", "sessionId", "tokens"}, jsonKeys(r.JSON))
	require.Equal(t, true, r.JSON["ok"])
	require.True(t, strings.HasPrefix(r.JSON["sessionId"].(string), "ses_"), "sessionId: %s", r.Raw)
	require.Greater(t, r.JSON["tokens"].(float64), 0.0)
	return r
}

func TestAssistantQuotesTheAccountsOwnFigures(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.1")
	// full_stack: chat is unlimited there, so other suites' load cannot spend the allowance.
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))

	h := c.Do(t, http.MethodGet, "/api/health-score", tok, nil).Expect(t, http.StatusOK)
	r := chatTurn(t, c, tok, map[string]any{"message": "How is my health score?"})
	require.Contains(t, r.JSON["reply"], fmt.Sprintf("Your health score is %v/100", h.JSON["score"]))

	// "why is that?" only makes sense after the first turn: it explains the weakest signal.
	weakest := 101.0
	for _, v := range h.JSON["signals"].(map[string]any) {
		weakest = min(weakest, v.(float64))
	}
	why := chatTurn(t, c, tok, map[string]any{"message": "why is that?", "sessionId": r.JSON["sessionId"]})
	require.Equal(t, r.JSON["sessionId"], why.JSON["sessionId"])
	require.Contains(t, why.JSON["reply"], fmt.Sprintf("is %v/100", weakest))
}

func TestAssistantResolvesFollowUpsFromTheSession(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.2")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))

	first := chatTurn(t, c, tok, map[string]any{"message": "Find plumbers in Texas"})
	require.Contains(t, first.JSON["reply"], "plumbing")
	second := chatTurn(t, c, tok, map[string]any{"message": "and in California?", "sessionId": first.JSON["sessionId"]})
	require.Contains(t, second.JSON["reply"], "plumbing", "the industry comes from the first turn")
	require.Contains(t, second.JSON["reply"], "California")

	fresh := chatTurn(t, c, tok, map[string]any{"message": "and in California?"})
	require.NotContains(t, fresh.JSON["reply"], "plumbing")
}

func TestAssistantSessionsBelongToOneAccount(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.3")
	owner := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))
	free := s.Token(t, s.Get(t, "DEMO_FREE_EMAIL"))

	r := chatTurn(t, c, owner, map[string]any{"message": "which clients are at risk of churning?"})
	other := c.Do(t, http.MethodPost, "/api/chat", free, map[string]any{"message": "why is that?", "sessionId": r.JSON["sessionId"]})
	other.Expect(t, http.StatusNotFound)
	require.Equal(t, false, other.JSON["ok"])
	require.Equal(t, "session_not_found", other.JSON["code"])
	require.NotContains(t, string(other.Raw), "churn")
}

func TestAssistantExchangesCountAsChatUsage(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.4")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))
	before := chatUsed(t, c, tok)
	chatTurn(t, c, tok, map[string]any{"message": "hello"})
	// usage.recorded travels through the outbox and the event stream to analytics.
	require.Eventually(t, func() bool { return chatUsed(t, c, tok) >= before+1 }, 15*time.Second, 250*time.Millisecond)
}

func TestAssistantRefusesBadInput(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.5")
	tok := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	cases := []struct {
		name   string
		token  string
		body   any
		status int
		field  string
	}{
		{"missing message", tok, map[string]any{}, 400, "message"},
		{"empty message", tok, map[string]any{"message": "  "}, 400, "message"},
		{"over-long message", tok, map[string]any{"message": strings.Repeat("a", 4001)}, 400, "message"},
		{"oversized context", tok, map[string]any{"message": "hi", "context": map[string]any{"x": strings.Repeat("y", 5000)}}, 413, "context"},
		{"unauthenticated", "", map[string]any{"message": "hi"}, 401, ""},
	}
	for _, tc := range cases {
		r := c.Do(t, http.MethodPost, "/api/chat", tc.token, tc.body)
		r.Expect(t, tc.status)
		require.Equal(t, false, r.JSON["ok"], tc.name)
		require.NotEmpty(t, r.JSON["error"], tc.name)
		if tc.field != "" {
			require.Equal(t, tc.field, r.JSON["field"], tc.name)
		}
	}
	seed := map[string]any{"events": []map[string]any{{"module": "Voice", "event_type": "MissedCallDetected"}}}
	c.Do(t, http.MethodPost, "/api/agent-brain-seed", "", seed).Expect(t, http.StatusUnauthorized)
	c.Do(t, http.MethodPost, "/api/agent-brain-seed", "", seed, http.Header{"x-agent-admin": {"wrong"}}).Expect(t, http.StatusForbidden)
}

func TestAssistantPublicFeedIsScrubbedAndCached(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.6")
	admin := http.Header{"x-agent-admin": {s.Get(t, "ADMIN_SECRET")}}
	pii := "Hi this is Jane Roe, call me at (512) 555-0134 or jane.roe@example.com, 12 Oak Street, acc_01JD3X8Z9Q4W5E6R7T8Y9U0A1B"
	r := c.Do(t, http.MethodPost, "/api/agent-brain-seed", "", map[string]any{"events": []map[string]any{
		{"module": "Recall", "event_type": "CustomerReplyReceived", "fields": map[string]any{"text": pii}},
		{"module": "Stars", "event_type": "ReviewReceived", "fields": map[string]any{"rating": 5}},
	}}, admin).Expect(t, http.StatusCreated)
	require.Equal(t, 2.0, r.JSON["inserted"])

	f := c.Do(t, http.MethodGet, "/api/agent-brain-public-feed", "", nil).Expect(t, http.StatusOK)
	require.ElementsMatch(t, []string{"events", "demo"}, jsonKeys(f.JSON))
	require.Equal(t, false, f.JSON["demo"])
	require.Equal(t, "public, max-age=60", f.Header.Get("Cache-Control"))
	evs := f.JSON["events"].([]any)
	require.NotEmpty(t, evs)
	require.LessOrEqual(t, len(evs), 50)
	var summaries strings.Builder
	for _, e := range evs {
		ev := e.(map[string]any)
		require.ElementsMatch(t, []string{"module", "event_type", "summary", "ts"}, jsonKeys(ev))
		require.Regexp(t, isoMillis, ev["ts"])
		summaries.WriteString(ev["summary"].(string) + "\n")
	}
	// Summaries, not the raw body: timestamps may contain digit runs such as .555Z.
	for _, leak := range []string{"Jane", "Roe", "555", "0134", "example.com", "Oak Street", "acc_"} {
		require.NotContains(t, summaries.String(), leak)
	}
	require.NotContains(t, string(f.Raw), "example.com")

	etag := f.Header.Get("ETag")
	require.NotEmpty(t, etag)
	c.Do(t, http.MethodGet, "/api/agent-brain-public-feed", "", nil, http.Header{"If-None-Match": {etag}}).Expect(t, http.StatusNotModified)
}

func jsonKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
