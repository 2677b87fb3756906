package service_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 27: the assistant acts only when asked, remembers what it was told and reads follow-ups
// as follow-ups, whichever brain answers.

func (b *backends) searchCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.searches)
}

func TestAStatementIsRememberedAndOnlyAYesRunsTheOfferedSearch(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	token := s.token("acc_alice", "growth")

	r := s.chat(t, token, map[string]any{"message": "My name is Zoë and I run a bakery in Denver. Remember that."})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Zero(t, s.back.searchCount(), "a statement spends no lead search and writes nothing: %s", r.raw)
	require.Contains(t, r.body["reply"], "Zoë")
	require.Contains(t, r.body["reply"], "Want me to find bakery leads in Denver?")
	session := r.body["sessionId"]

	name := s.chat(t, token, map[string]any{"message": "What is my name?", "sessionId": session})
	require.Equal(t, "Your name is Zoë.", name.body["reply"])
	require.Zero(t, s.back.searchCount())

	// An offer stands for the next turn only: made again, it is accepted.
	again := s.chat(t, token, map[string]any{"message": "I run a bakery in Denver", "sessionId": session})
	require.Contains(t, again.body["reply"], "Want me to find bakery leads in Denver?")
	yes := s.chat(t, token, map[string]any{"message": "yes", "sessionId": session})
	require.Equal(t, http.StatusOK, yes.status, yes.raw)
	require.Equal(t, 1, s.back.searchCount())
	require.Equal(t, "acc_alice|bakery|Denver", s.back.lastSearch(), "exactly the offered search")

	// "find leads for my industry here" uses what was told.
	s.chat(t, token, map[string]any{"message": "find leads for my industry here", "sessionId": session})
	require.Equal(t, "acc_alice|bakery|Denver", s.back.lastSearch())
	require.Equal(t, 2, s.back.searchCount())
}

// Issue 39: a request phrased as a question searches; what is stated beside a request is kept.
func TestAQuestionThatAsksSearchesAndWhatWasSaidBesideItIsKept(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	token := s.token("acc_alice", "growth")

	vets := s.chat(t, token, map[string]any{"message": "Veterinarians in Columbus, Ohio - can you find some?"})
	require.Equal(t, http.StatusOK, vets.status, vets.raw)
	require.Equal(t, 1, s.back.searchCount(), "asked, so searched: %s", vets.raw)
	require.Equal(t, "acc_alice|veterinary|Columbus, Ohio", s.back.lastSearch())

	r := s.chat(t, token, map[string]any{"message": "My shop is called Flourish Patisserie. Could you get me bakeries in Austin?"})
	require.Equal(t, 2, s.back.searchCount(), r.raw)
	require.Equal(t, "acc_alice|bakery|Austin", s.back.lastSearch())
	name := s.chat(t, token, map[string]any{"message": "what's the name of my shop?", "sessionId": r.body["sessionId"]})
	require.Equal(t, "Your business is called Flourish Patisserie.", name.body["reply"])
	require.Equal(t, 2, s.back.searchCount())
}

func TestAFollowUpIsNotReadAsAPlace(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	token := s.token("acc_alice", "growth")

	r := s.chat(t, token, map[string]any{"message": "find plumbers in Austin, TX"})
	session := r.body["sessionId"]
	require.Equal(t, 1, s.back.searchCount())

	reviews := s.chat(t, token, map[string]any{"message": "And what about reviews?", "sessionId": session})
	require.Equal(t, http.StatusOK, reviews.status, reviews.raw)
	require.Equal(t, 1, s.back.searchCount(), "no search for a place called \"what about reviews\"")
	require.NotContains(t, reviews.body["reply"], "in what about reviews")
	require.Contains(t, reviews.body["reply"], "can't see reviews")

	top := s.chat(t, token, map[string]any{"message": "which of them has the best score?", "sessionId": session})
	require.Contains(t, top.body["reply"], "Barton Creek Plumbing has the best score, 91")
	two := s.chat(t, token, map[string]any{"message": "the top 2", "sessionId": session})
	require.Contains(t, two.body["reply"], "1. Barton Creek Plumbing, score 91\n2. Eastside Pipe Works, score 84")
	require.Equal(t, 1, s.back.searchCount(), "answered from the last results")

	dallas := s.chat(t, token, map[string]any{"message": "and in Dallas?", "sessionId": session})
	require.Contains(t, dallas.body["reply"], "Deep Ellum Drains")
	require.Equal(t, "acc_alice|plumbing|Dallas", s.back.lastSearch())

	weather := s.chat(t, token, map[string]any{"message": "what's the weather like?", "sessionId": session})
	require.Contains(t, weather.body["reply"], "I can find leads when you ask")
	require.Equal(t, 2, s.back.searchCount())
}

// chatModel speaks the chat-completions protocol over a real socket: each request gets the next
// of script's answers for it, computed from the request, and the requests are kept.
type chatModel struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
}

func newChatModel(t *testing.T, script func(messages []any) string) *chatModel {
	t.Helper()
	m := &chatModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		m.requests = append(m.requests, body)
		m.mu.Unlock()
		msgs, _ := body["messages"].([]any)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"chatcmpl-u","object":"chat.completion","created":1732190000,"model":"test-model",
			"choices":[{"index":0,"finish_reason":"stop","message":` + script(msgs) + `}],
			"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}`))
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *chatModel) toolResults() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, req := range m.requests {
		msgs, _ := req["messages"].([]any)
		if last, _ := msgs[len(msgs)-1].(map[string]any); last["role"] == "tool" {
			out = append(out, last["content"].(string))
		}
	}
	return out
}

// An eager model calls find_leads whatever the owner said; when its tool result comes back it
// answers in words.
func eagerModel(args string) func([]any) string {
	return func(msgs []any) string {
		last, _ := msgs[len(msgs)-1].(map[string]any)
		if last["role"] == "tool" {
			return `{"role":"assistant","content":"Here is what I could do."}`
		}
		raw, _ := json.Marshal(args)
		return `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"find_leads","arguments":` + string(raw) + `}}]}`
	}
}

func TestTheChatRefusesASideEffectingToolTheModelCallsOnAStatement(t *testing.T) {
	t.Parallel()
	model := newChatModel(t, eagerModel(`{"industry":"bakery","location":"Denver","limit":5}`))
	s := newStack(t, map[string]string{"ASSISTANT_LLM_BASE_URL": model.URL + "/v1", "ASSISTANT_LLM_MAX_RETRIES": "0"})
	token := s.token("acc_alice", "growth")

	r := s.chat(t, token, map[string]any{"message": "My name is Zoë and I run a bakery in Denver. Remember that."})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Equal(t, "Here is what I could do.", r.body["reply"])
	require.Zero(t, s.back.searchCount(), "the model asked to search on a statement: the chat refused")
	results := model.toolResults()
	require.Len(t, results, 1)
	require.Contains(t, results[0], "not run", "the model is told the call was refused")

	// The model was given the registry's tools, and told what the owner said and that this message
	// asks for no search.
	model.mu.Lock()
	first := model.requests[0]
	model.mu.Unlock()
	var names []string
	for _, tool := range first["tools"].([]any) {
		names = append(names, tool.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	require.Equal(t, []string{"find_leads", "recent_leads", "health_score", "plan_usage", "churn_risks", "qualify_lead", "score_leads"}, names,
		"every action of the registry, lead scoring too: the backend implements it")
	system := first["messages"].([]any)[0].(map[string]any)["content"].(string)
	require.Contains(t, system, "The owner's name (they told you): Zoë.")
	require.Contains(t, system, "does not ask for a lead search")

	// "yes" accepts what the model tried: exactly that search runs.
	session := r.body["sessionId"]
	yes := s.chat(t, token, map[string]any{"message": "yes", "sessionId": session})
	require.Equal(t, http.StatusOK, yes.status, yes.raw)
	require.Equal(t, 1, s.back.searchCount())
	require.Equal(t, "acc_alice|bakery|Denver", s.back.lastSearch())
}

func TestAYesRunsOnlyTheOfferedSearchWhateverTheModelAsks(t *testing.T) {
	t.Parallel()
	model := newChatModel(t, eagerModel(`{"industry":"plumbing","location":"Austin, TX"}`))
	s := newStack(t, map[string]string{"ASSISTANT_LLM_BASE_URL": model.URL + "/v1", "ASSISTANT_LLM_MAX_RETRIES": "0"})
	token := s.token("acc_alice", "growth")

	r := s.chat(t, token, map[string]any{"message": "I run a bakery in Denver"})
	require.Zero(t, s.back.searchCount())
	yes := s.chat(t, token, map[string]any{"message": "sure", "sessionId": r.body["sessionId"]})
	require.Equal(t, http.StatusOK, yes.status, yes.raw)
	require.Zero(t, s.back.searchCount(), "the offer was bakery leads in Denver, not plumbers in Austin")

	// An explicit request lets the model search.
	find := s.chat(t, token, map[string]any{"message": "find plumbers in Austin, TX", "sessionId": r.body["sessionId"]})
	require.Equal(t, http.StatusOK, find.status, find.raw)
	require.Equal(t, "acc_alice|plumbing|Austin, TX", s.back.lastSearch())
	last := model.toolResults()
	require.True(t, strings.Contains(last[len(last)-1], "Barton Creek Plumbing"), last[len(last)-1])
}
