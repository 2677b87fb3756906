package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue 27: the three conversations that showed the assistant acting on statements and misreading
// follow-ups, through the ingress with the offline advisor. Source addresses: 127.0.3.40-49.

// featureUsed is this month's use of a feature as pql-check reports it.
func featureUsed(t *testing.T, c *Client, token, feature string) float64 {
	t.Helper()
	r := c.Do(t, http.MethodGet, "/api/pql-check?feature="+feature, token, nil).Expect(t, http.StatusOK)
	f, _ := r.JSON["features"].(map[string]any)[feature].(map[string]any)
	require.NotNil(t, f, "pql-check: %s", r.Raw)
	return f["used"].(float64)
}

// newestLead is the id of the newest row of the caller's leads sheet ("" when it is empty).
func newestLead(t *testing.T, c *Client, token string) string {
	t.Helper()
	r := c.Do(t, http.MethodGet, "/api/leads?limit=1", token, nil).Expect(t, http.StatusOK)
	leads, _ := r.JSON["leads"].([]any)
	if len(leads) == 0 {
		return ""
	}
	id, _ := leads[0].(map[string]any)["id"].(string)
	return id
}

func TestAssistantTakesAStatementAsInformation(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.40")
	// full_stack: chat is unlimited there, so other suites cannot have spent the chat allowance.
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))

	rc := newHookReceiver(t, s)
	sub := c.Do(t, http.MethodPost, "/api/ext-webhook/subscribe", tok,
		map[string]string{"hookUrl": rc.srv.URL + "/understanding", "event": "new_lead"}).Expect(t, http.StatusCreated)
	hookID, _ := sub.JSON["id"].(string)
	t.Cleanup(func() {
		s.Client(t, "127.0.3.41").Do(t, http.MethodDelete, "/api/ext-webhook/subscriptions/"+hookID, tok, nil).Expect(t, http.StatusOK)
	})
	rc.trust(t, sub.JSON["secret"].(string))

	spent, newest := featureUsed(t, c, tok, "lead_finder"), newestLead(t, c, tok)
	r := chatTurn(t, c, tok, map[string]any{"message": "My name is Zoë and I run a bakery in Denver. Remember that."})
	require.Contains(t, r.JSON["reply"], "Want me to find bakery leads in Denver?", "the search is offered, not run")
	require.NotContains(t, r.JSON["reply"], "added")

	require.Equal(t, spent, featureUsed(t, c, tok, "lead_finder"), "no lead_finder unit spent on a statement")
	require.Equal(t, newest, newestLead(t, c, tok), "nothing written to the leads sheet")
	// Deliveries follow a written lead within a second or two on this stack; none may come.
	time.Sleep(5 * time.Second)
	rc.mu.Lock()
	require.Empty(t, rc.got, "no new_lead webhook for a statement")
	rc.mu.Unlock()

	// The offer is exactly what a "yes" runs: one search, which counts when it finds leads (leads
	// gives the unit back when the catalog has none).
	yes := chatTurn(t, c, tok, map[string]any{"message": "yes", "sessionId": r.JSON["sessionId"]})
	reply := yes.JSON["reply"].(string)
	require.Contains(t, reply, "bakery")
	want := spent + 1
	if strings.Contains(reply, "I found no") {
		want = spent
	}
	require.Equal(t, want, featureUsed(t, c, tok, "lead_finder"), "the accepted offer is one search: %s", reply)
}

func TestAssistantRemembersTheOwnersName(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.42")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))

	r := chatTurn(t, c, tok, map[string]any{"message": "My name is Zoë and I run a bakery in Denver. Remember that."})
	name := chatTurn(t, c, tok, map[string]any{"message": "What is my name?", "sessionId": r.JSON["sessionId"]})
	require.Equal(t, "Your name is Zoë.", name.JSON["reply"])
	what := chatTurn(t, c, tok, map[string]any{"message": "what do you know about me?", "sessionId": r.JSON["sessionId"]})
	require.Contains(t, what.JSON["reply"], "bakery")
	require.Contains(t, what.JSON["reply"], "Denver")

	// Another session knows nothing of it.
	fresh := chatTurn(t, c, tok, map[string]any{"message": "What is my name?"})
	require.NotContains(t, fresh.JSON["reply"], "Zoë")
}

func TestAssistantReadsAFollowUpAsAFollowUp(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.43")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))

	first := chatTurn(t, c, tok, map[string]any{"message": "find plumbers in Austin, TX"})
	require.Contains(t, first.JSON["reply"], "plumbing")
	spent := featureUsed(t, c, tok, "lead_finder")

	reviews := chatTurn(t, c, tok, map[string]any{"message": "And what about reviews?", "sessionId": first.JSON["sessionId"]})
	require.NotContains(t, reviews.JSON["reply"], "what about reviews", "not searched as a place")
	require.NotContains(t, reviews.JSON["reply"], "I found")
	require.Contains(t, reviews.JSON["reply"], "reviews")
	require.Equal(t, spent, featureUsed(t, c, tok, "lead_finder"), "a follow-up question spends no search")
}

// Issue 39, items 3 and 4: a request phrased as a question searches, and a business name stated
// beside a request is remembered.
func TestAssistantTakesAQuestionThatAsksAsARequest(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.3.44")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))

	r := chatTurn(t, c, tok, map[string]any{"message": "Veterinarians in Columbus, Ohio - can you find some?"})
	reply := r.JSON["reply"].(string)
	require.NotContains(t, reply, "Want me to find", "asked, so searched, not offered")
	require.Contains(t, reply, "I found", "the search ran: %s", reply)

	shop := chatTurn(t, c, tok, map[string]any{"message": "My shop is called Flourish Patisserie. Could you get me bakeries in Austin?"})
	require.NotContains(t, shop.JSON["reply"], "Want me to find")
	name := chatTurn(t, c, tok, map[string]any{"message": "what's the name of my shop?", "sessionId": shop.JSON["sessionId"]})
	require.Equal(t, "Your business is called Flourish Patisserie.", name.JSON["reply"])
}
