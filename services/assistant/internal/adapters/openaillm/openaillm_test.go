package openaillm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/openaillm"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// fakeTools answers with fixed figures and records the searches it was asked for.
type fakeTools struct {
	mu       sync.Mutex
	searches []app.LeadSearch
	health   atomic.Int32 // health score calls
}

func (f *fakeTools) FindLeads(_ context.Context, q app.LeadSearch) (app.LeadResults, error) {
	f.mu.Lock()
	f.searches = append(f.searches, q)
	f.mu.Unlock()
	return app.LeadResults{Count: 1, Leads: []app.Lead{{BusinessName: "Barton Creek Plumbing", Score: 91}}}, nil
}
func (f *fakeTools) RecentLeads(context.Context, int) ([]app.SheetLead, error) { return nil, nil }
func (f *fakeTools) Health(context.Context) (app.Health, error) {
	f.health.Add(1)
	return app.Health{Score: 42, Tier: "at_risk", Signals: map[string]int{"loginRecency": 15}}, nil
}
func (f *fakeTools) Usage(context.Context) (app.Usage, error) { return app.Usage{}, nil }
func (f *fakeTools) ChurnRisks(context.Context, int, int) (app.Churn, error) {
	return app.Churn{}, &app.ToolError{Tool: "churn prediction", Status: 403, Code: "plan_upgrade_required", Message: "growth plan required"}
}

// chatServer speaks the chat-completions protocol: it replays scripted answers in order and keeps
// the requests it received.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
}

func newChatServer(t *testing.T, answers ...string) *chatServer {
	t.Helper()
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/v1/chat/completions", r.URL.Path)
		var body map[string]any
		require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, body)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answers[min(n, len(answers)-1)]))
	}))
	t.Cleanup(s.Close)
	return s
}

func completion(message string, total int) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1732190000,"model":"test-model",
		"choices":[{"index":0,"finish_reason":"stop","message":` + message + `}],
		"usage":{"prompt_tokens":` + itoa(total-5) + `,"completion_tokens":5,"total_tokens":` + itoa(total) + `}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func model(baseURL string, timeout time.Duration) *openaillm.Model {
	cfg := openaillm.Config{BaseURL: baseURL + "/v1", Model: "test-model", APIKey: "sk-test", Timeout: timeout, MaxRetries: 0, MaxToolRounds: 3}
	return openaillm.New(cfg)
}

func TestToolCallRoundTripAndReportedUsage(t *testing.T) {
	t.Parallel()
	srv := newChatServer(t,
		completion(`{"role":"assistant","content":null,"tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"health_score","arguments":"{}"}},
			{"id":"call_2","type":"function","function":{"name":"find_leads","arguments":"{\"industry\":\"plumbing\",\"location\":\"Austin, TX\",\"limit\":50}"}}]}`, 120),
		completion(`{"role":"assistant","content":"Your health score is 42 and Barton Creek Plumbing scores 91."}`, 200),
	)
	tools := &fakeTools{}
	history := []domain.Message{{Role: domain.RoleUser, Content: "hi"}, {Role: domain.RoleAssistant, Content: "Hello!"}}
	ans, err := model(srv.URL, 5*time.Second).Reply(context.Background(), app.Conversation{
		Plan: "growth", Message: "How am I doing, and any plumbers in Austin?", History: history,
		Context: json.RawMessage(`{"page":"dashboard"}`),
	}, tools)
	require.NoError(t, err)
	require.Equal(t, "Your health score is 42 and Barton Creek Plumbing scores 91.", ans.Text)
	require.Equal(t, 320, ans.Tokens, "the provider's usage summed over both calls")
	require.Equal(t, domain.IntentConversation, ans.Topic)

	require.Len(t, srv.requests, 2)
	require.Equal(t, []string{"Bearer sk-test", "Bearer sk-test"}, srv.auth)
	first := srv.requests[0]
	require.Equal(t, "test-model", first["model"])
	require.Len(t, first["tools"], 5)
	msgs := first["messages"].([]any)
	require.Len(t, msgs, 4, "system, two history messages, the new message")
	require.Contains(t, msgs[0].(map[string]any)["content"], `{"page":"dashboard"}`)

	// The second call carries the assistant's tool calls and one result per call.
	second := srv.requests[1]["messages"].([]any)
	require.Len(t, second, 7)
	require.Equal(t, "assistant", second[4].(map[string]any)["role"])
	results := map[string]string{}
	for _, m := range second[5:] {
		mm := m.(map[string]any)
		require.Equal(t, "tool", mm["role"])
		results[mm["tool_call_id"].(string)] = mm["content"].(string)
	}
	require.Contains(t, results["call_1"], `"score":42`)
	require.Contains(t, results["call_2"], `"businessName":"Barton Creek Plumbing"`)
	require.Equal(t, []app.LeadSearch{{Industry: "plumbing", Location: "Austin, TX", Limit: 10}}, tools.searches, "limit is capped")
}

func TestToolErrorsAreReportedToTheModel(t *testing.T) {
	t.Parallel()
	srv := newChatServer(t,
		completion(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"churn_risks","arguments":"{}"}}]}`, 10),
		completion(`{"role":"assistant","content":"Churn prediction needs the growth plan."}`, 10),
	)
	ans, err := model(srv.URL, 5*time.Second).Reply(context.Background(), app.Conversation{Message: "who may churn?"}, &fakeTools{})
	require.NoError(t, err)
	require.Equal(t, "Churn prediction needs the growth plan.", ans.Text)
	tool := srv.requests[1]["messages"].([]any)[3].(map[string]any)
	require.Contains(t, tool["content"], "growth plan required")
}

func TestOneReplyRunsAtMostTheBoundOfToolCalls(t *testing.T) {
	t.Parallel()
	calls := make([]string, 50)
	for i := range calls {
		calls[i] = `{"id":"call_` + itoa(i) + `","type":"function","function":{"name":"health_score","arguments":"{}"}}`
	}
	srv := newChatServer(t,
		completion(`{"role":"assistant","content":null,"tool_calls":[`+strings.Join(calls, ",")+`]}`, 10),
		completion(`{"role":"assistant","content":"Your health score is 42."}`, 10),
	)
	tools := &fakeTools{}
	ans, err := model(srv.URL, 5*time.Second).Reply(context.Background(), app.Conversation{Message: "how am I doing?"}, tools)
	require.NoError(t, err)
	require.Equal(t, "Your health score is 42.", ans.Text)
	require.EqualValues(t, openaillm.MaxToolCallsPerReply, tools.health.Load(), "only the first calls of the reply run")

	// Every call still gets its result, as the protocol requires; the ones past the bound an error.
	results := srv.requests[1]["messages"].([]any)[3:]
	require.Len(t, results, 50)
	for i, m := range results {
		content := m.(map[string]any)["content"].(string)
		if i < openaillm.MaxToolCallsPerReply {
			require.Contains(t, content, `"score":42`)
		} else {
			require.Contains(t, content, "not run", "call %d", i)
		}
	}
}

func TestModelFailuresBecomeClearErrorEnvelopes(t *testing.T) {
	t.Parallel()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"message":"model overloaded","type":"server_error","code":null,"param":null}}`))
	}))
	t.Cleanup(failing.Close)
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select { // answers only when the client gives up
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); hanging.Close() })

	cases := []struct {
		name   string
		url    string
		status int
		code   string
	}{
		{"provider error", failing.URL, http.StatusServiceUnavailable, "model_unavailable"},
		{"timeout", hanging.URL, http.StatusGatewayTimeout, "timeout"},
	}
	for _, tc := range cases {
		_, err := model(tc.url, 300*time.Millisecond).Reply(context.Background(), app.Conversation{Message: "hi"}, &fakeTools{})
		require.Error(t, err, tc.name)
		rec := httptest.NewRecorder()
		httpx.Fail(rec, httptest.NewRequest(http.MethodPost, "/api/chat", nil), err)
		require.Equal(t, tc.status, rec.Code, tc.name)
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		require.Equal(t, tc.code, body["code"], tc.name)
		require.NotContains(t, rec.Body.String(), "overloaded", "provider details stay in the logs")
	}
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	require.NoError(t, openaillm.Config{}.Validate(), "no model configured is valid: the advisor answers")
	require.Error(t, openaillm.Config{BaseURL: "localhost:11434", Model: "m", Timeout: time.Second, MaxToolRounds: 1}.Validate())
	require.Error(t, openaillm.Config{BaseURL: "http://127.0.0.1:11434/v1", Timeout: time.Second, MaxToolRounds: 1}.Validate())
	require.NoError(t, openaillm.Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.1", Timeout: time.Second, MaxToolRounds: 1}.Validate())
	require.Error(t, openaillm.Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.1", Timeout: time.Second, MaxToolRounds: 9}.Validate(),
		"tool rounds are bounded too")
}
