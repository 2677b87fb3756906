package service_test

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

	"github.com/bizassist/bizassist/libs/allowance"
	"github.com/bizassist/bizassist/libs/allowance/allowancetest"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/httpx/httpxtest"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/openapitest"
	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/services/assistant/api"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
	"github.com/bizassist/bizassist/services/assistant/internal/service"
)

const adminSecret = "test-admin-secret-0123456789"

// business is what the fake leads and analytics services know about one account.
type business struct {
	leads   map[string][]map[string]any // "industry|location" -> lead-finder results
	sheet   []map[string]any
	health  map[string]any
	churn   map[string]any
	noChurn bool // plan without churn prediction
	// chatUsed and chatLimit start the month's chat allowance (-1: unlimited).
	chatUsed, chatLimit int
}

// backends fakes leads and analytics over real sockets. They authenticate the bearer token the
// assistant forwards and answer with the data of the account it names. Analytics keeps each
// account's chat allowance and implements the reservation contract (reserve before the work,
// release when it failed) atomically.
type backends struct {
	leads, analytics *httptest.Server
	// fail, when set, is the status analytics answers every call with.
	fail atomic.Int32

	// chat is analytics' allowance routes: the double every metering service's tests share.
	chat *allowancetest.Server

	mu       sync.Mutex
	searches []string // "account|industry|location"
	calls    []string // "METHOD path X-Forwarded-For" of every call
}

type route func(authjwt.Caller, business, *http.Request) (int, any)

func newBackends(t testing.TB, iss *jwttest.Issuer, data map[string]business) *backends {
	t.Helper()
	verifier, err := authjwt.NewVerifier(iss.Config())
	require.NoError(t, err)
	// Each account has a plan of its own in the double, with its own chat limit.
	b, limits, allowances := &backends{}, allowancetest.Limits{}, http.NewServeMux()
	for id, biz := range data {
		limits["plan-"+id] = map[string]int{allowance.FeatureChat: biz.chatLimit}
	}
	b.chat = allowancetest.Mount(t, allowances, iss.Config(), limits)
	for id, biz := range data {
		b.chat.SetPlan(id, "plan-"+id)
		b.chat.Spend(id, allowance.FeatureChat, biz.chatUsed)
	}
	serve := func(fails bool, routes map[string]route, more http.Handler) *httptest.Server {
		srv := httptest.NewServer(verifier.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, _ := authjwt.CallerFrom(r.Context())
			b.mu.Lock()
			b.calls = append(b.calls, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Forwarded-For"))
			b.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			if status := int(b.fail.Load()); fails && status != 0 {
				w.Header().Set("Retry-After", "30")
				w.WriteHeader(status)
				_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": http.StatusText(status), "code": "failing"})
				return
			}
			route, ok := routes[r.Method+" "+r.URL.Path]
			if !ok && more != nil {
				more.ServeHTTP(w, r)
				return
			}
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "no such route", "code": "not_found"})
				return
			}
			status, body := route(c, data[c.AccountID], r)
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(body)
		})))
		t.Cleanup(srv.Close)
		return srv
	}
	b.leads = serve(false, map[string]route{
		"POST /internal/lead-finder": func(c authjwt.Caller, biz business, r *http.Request) (int, any) {
			var q struct {
				Industry, Location string
				Limit              int
			}
			_ = json.NewDecoder(r.Body).Decode(&q)
			b.mu.Lock()
			b.searches = append(b.searches, c.AccountID+"|"+q.Industry+"|"+q.Location)
			b.mu.Unlock()
			found := biz.leads[q.Industry+"|"+q.Location]
			return 200, map[string]any{"ok": true, "count": len(found), "leads": found}
		},
		"GET /internal/leads": func(_ authjwt.Caller, biz business, _ *http.Request) (int, any) {
			return 200, map[string]any{"ok": true, "leads": biz.sheet, "nextCursor": ""}
		},
	}, nil)
	b.analytics = serve(true, map[string]route{
		"GET /internal/health-score": func(_ authjwt.Caller, biz business, _ *http.Request) (int, any) { return 200, biz.health },
		"GET /internal/pql-check": func(c authjwt.Caller, _ business, _ *http.Request) (int, any) {
			b.mu.Lock()
			defer b.mu.Unlock()
			return 200, usage(b.chat.Used(c.AccountID, allowance.FeatureChat), data[c.AccountID].chatLimit)
		},
		"GET /internal/churn-predict": func(_ authjwt.Caller, biz business, _ *http.Request) (int, any) {
			if biz.noChurn {
				return 403, map[string]any{"ok": false, "error": "churn prediction needs the growth plan", "code": "plan_upgrade_required", "upgradeUrl": "https://bizassist.test/pricing"}
			}
			return 200, biz.churn
		},
	}, allowances)
	return b
}

func (b *backends) lastSearch() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.searches) == 0 {
		return ""
	}
	return b.searches[len(b.searches)-1]
}

// allowance reports an account's chat units in use and the reservations granted and released.
func (b *backends) allowance(account string) (used, reserved, released int) {
	return b.chat.Used(account, allowance.FeatureChat), b.chat.Granted(), b.chat.Released()
}

func usage(chatUsed, chatLimit int) map[string]any {
	pct := 0
	if chatLimit > 0 {
		pct = chatUsed * 100 / chatLimit
	}
	return map[string]any{"ok": true, "nearLimit": pct >= 80, "usagePercent": pct,
		"upgradeUrl": "https://bizassist.test/pricing",
		"features": map[string]any{
			"chat":         map[string]any{"used": chatUsed, "limit": chatLimit, "pct": pct, "unlimited": false},
			"lead_finder":  map[string]any{"used": 7, "limit": 50, "pct": 14, "unlimited": false},
			"lead_scoring": map[string]any{"used": 0, "limit": nil, "pct": 0, "unlimited": true},
		}}
}

func health(score int, tier string, signals map[string]int) map[string]any {
	return map[string]any{"ok": true, "score": score, "tier": tier, "signals": signals, "updatedAt": "2026-11-21T10:00:00.000Z"}
}

// Account data of the test: two owners whose answers must differ, and one whose chat is spent.
var (
	alice = business{
		leads: map[string][]map[string]any{
			"plumbing|Austin, TX": {
				{"businessName": "Barton Creek Plumbing", "ownerName": "Rosa Diaz", "email": "rosa@bartoncreek.test", "phone": "+15125550101", "score": 91, "source": "organic"},
				{"businessName": "Eastside Pipe Works", "ownerName": "Sam Lee", "email": "sam@eastside.test", "phone": "+15125550102", "score": 84, "source": "organic"},
			},
			"plumbing|Dallas": {
				{"businessName": "Deep Ellum Drains", "ownerName": "Ann Cho", "email": "ann@deepellum.test", "phone": "+12145550103", "score": 88, "source": "organic"},
			},
		},
		health: health(42, "at_risk", map[string]int{"loginRecency": 15, "featureAdoption": 35, "chatEngagement": 60, "leadActivity": 80,
			"loginFrequency": 50, "usageTrend": 55, "planUtilisation": 45, "integrationUse": 40, "paymentHealth": 100, "tenure": 70}),
		chatUsed: 12, chatLimit: 100,
		churn: map[string]any{"ok": true, "atRisk": 2, "clients": []map[string]any{
			{"email": "owner@quietbakery.test", "businessName": "Quiet Bakery", "churnProbability": 81, "healthScore": 22, "lastLogin": "2026-10-02T09:00:00.000Z", "recommendation": "Call them: logins stopped six weeks ago."},
			{"email": "hi@fadingflorist.test", "businessName": "Fading Florist", "churnProbability": 64, "healthScore": 35, "lastLogin": "2026-10-30T09:00:00.000Z", "recommendation": "Show them lead search."},
		}},
	}
	bob = business{
		leads: map[string][]map[string]any{
			"plumbing|Austin, TX": {
				{"businessName": "Lone Star Rooter", "ownerName": "Kim Park", "email": "kim@lonestar.test", "phone": "+15125550199", "score": 77, "source": "organic"},
			},
		},
		health:   health(83, "healthy", map[string]int{"loginRecency": 95, "featureAdoption": 70, "chatEngagement": 90, "leadActivity": 75}),
		chatUsed: 3, chatLimit: 50,
		noChurn: true,
	}
	carol = business{health: health(50, "at_risk", map[string]int{"loginRecency": 50}), chatUsed: 50, chatLimit: 50}
	// dave has a small allowance for the concurrency test; erin's chat is unlimited (benchmarks).
	dave = business{health: health(70, "healthy", map[string]int{"loginRecency": 70}), chatLimit: 10}
	erin = business{health: health(90, "healthy", map[string]int{"loginRecency": 90}), chatLimit: -1}
)

type stack struct {
	svc      *service.Service
	base     string
	iss      *jwttest.Issuer
	back     *backends
	contract *openapitest.Contract
}

// newStack starts a stack with extra settings; prepare, when given, changes the environment last.
func newStack(t testing.TB, extra map[string]string, prepare ...func(environ map[string]string)) *stack {
	t.Helper()
	iss := jwttest.NewIssuer(t)
	back := newBackends(t, iss, map[string]business{"acc_alice": alice, "acc_bob": bob, "acc_carol": carol, "acc_dave": dave, "acc_erin": erin})
	ln, base := platformtest.Listen(t)
	environ := platformtest.Env(t, service.Name, iss.JWKSURL())
	environ["LEADS_URL"] = back.leads.URL
	environ["ANALYTICS_URL"] = back.analytics.URL
	environ["AGENT_ADMIN_SECRET"] = adminSecret
	environ["ASSISTANT_CACHE_PREFIX"] = environ["RATELIMIT_PREFIX"] + "cache"
	for k, v := range extra {
		environ[k] = v
	}
	for _, f := range prepare {
		f(environ)
	}
	s := platformtest.Start(t, ln, service.New, environ)
	return &stack{svc: s, base: base, iss: iss, back: back, contract: openapitest.Load(t, api.OpenAPI)}
}

func (s *stack) token(account, plan string) string {
	return s.iss.Token(authjwt.Caller{AccountID: account, Email: account + "@example.com", Plan: plan})
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

// do sends a request from client address ip and checks the exchange against the contract.
func (s *stack) do(t *testing.T, method, path, ip string, headers map[string]string, body any) reply {
	t.Helper()
	req := openapitest.JSONRequest(t, method, s.base+path, body)
	req.Header.Set("X-Forwarded-For", ip)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	x := s.contract.Do(t, req)
	return reply{status: x.Status, header: x.Header, body: x.JSON, raw: string(x.Body)}
}

func (s *stack) chat(t *testing.T, token string, body any) reply {
	t.Helper()
	return s.do(t, http.MethodPost, "/api/chat", "10.0.3.1", map[string]string{"Authorization": "Bearer " + token}, body)
}

func TestConversationFollowsUpFromTheSessionWithTheAccountsOwnFigures(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	aliceToken := s.token("acc_alice", "growth")

	r := s.chat(t, aliceToken, map[string]any{"message": "Find plumbers in Austin, TX"})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Contains(t, r.body["reply"], "Barton Creek Plumbing")
	require.Contains(t, r.body["reply"], "score 91")
	require.Greater(t, r.body["tokens"], 0.0)
	require.Equal(t, "acc_alice|plumbing|Austin, TX", s.back.lastSearch())
	session := r.body["sessionId"].(string)
	s.back.mu.Lock()
	require.Equal(t, []string{"POST /internal/usage/reserve ", "POST /internal/lead-finder "}, s.back.calls,
		"the reservation, then the search: internal routes, and the caller's address is not forwarded")
	s.back.mu.Unlock()

	// "and in Dallas?" only makes sense after the first turn: industry comes from the session.
	r = s.chat(t, aliceToken, map[string]any{"message": "and in Dallas?", "sessionId": session})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Equal(t, session, r.body["sessionId"])
	require.Equal(t, "acc_alice|plumbing|Dallas", s.back.lastSearch())
	require.Contains(t, r.body["reply"], "Deep Ellum Drains")
	require.Contains(t, r.body["reply"], "score 88")

	r = s.chat(t, aliceToken, map[string]any{"message": "why?", "sessionId": session})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Contains(t, r.body["reply"], "Deep Ellum Drains came first with a score of 88")

	// A fresh session does not know the industry.
	r = s.chat(t, aliceToken, map[string]any{"message": "and in Dallas?"})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.NotContains(t, r.body["reply"], "Deep Ellum Drains")
	require.NotEqual(t, session, r.body["sessionId"])
}

func TestTheSameQuestionIsAnsweredFromEachAccountsData(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	aliceToken, bobToken := s.token("acc_alice", "growth"), s.token("acc_bob", "free")

	a := s.chat(t, aliceToken, map[string]any{"message": "How is my health score?"})
	b := s.chat(t, bobToken, map[string]any{"message": "How is my health score?"})
	require.Equal(t, http.StatusOK, a.status, a.raw)
	require.Equal(t, http.StatusOK, b.status, b.raw)
	require.Contains(t, a.body["reply"], "42/100")
	require.Contains(t, a.body["reply"], "at risk")
	require.Contains(t, b.body["reply"], "83/100")
	require.Contains(t, b.body["reply"], "healthy")

	why := s.chat(t, aliceToken, map[string]any{"message": "why is that?", "sessionId": a.body["sessionId"]})
	require.Equal(t, http.StatusOK, why.status, why.raw)
	require.Contains(t, why.body["reply"], "login recency is 15/100")

	a = s.chat(t, aliceToken, map[string]any{"message": "which clients are at risk of churning?"})
	require.Contains(t, a.body["reply"], "Quiet Bakery: 81% risk, health 22, last login 2026-10-02")
	b = s.chat(t, bobToken, map[string]any{"message": "which clients are at risk of churning?"})
	require.Contains(t, b.body["reply"], "growth and full stack plans")
	require.Contains(t, b.body["reply"], "https://bizassist.test/pricing")

	a = s.chat(t, aliceToken, map[string]any{"message": "am I near my plan limits?"})
	require.Contains(t, a.body["reply"], "chat 16 of 100 (16%)", "12 before, three earlier turns and this one")
	require.Contains(t, a.body["reply"], "lead scoring 0 (unlimited)")

	a = s.chat(t, aliceToken, map[string]any{"message": "what should I do next to grow?"})
	require.Contains(t, a.body["reply"], "login recency (15/100)")
	require.Contains(t, a.body["reply"], "call Quiet Bakery first (81% churn risk, health 22)")

	b = s.chat(t, bobToken, map[string]any{"message": "what should I do next to grow?"})
	require.Contains(t, b.body["reply"], "feature adoption (70/100)")
	require.Contains(t, b.body["reply"], "leads sheet is empty")
	require.NotContains(t, b.body["reply"], "churn risk", "bob's plan has no churn prediction")
}

func TestASessionBelongsToOneAccount(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	alice := s.token("acc_alice", "growth")
	r := s.chat(t, alice, map[string]any{"message": "Find plumbers in Austin, TX"})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	session := r.body["sessionId"].(string)

	// The same id from another account is that account's own, new session.
	other := s.chat(t, s.token("acc_bob", "free"), map[string]any{"message": "and in Dallas?", "sessionId": session})
	require.Equal(t, http.StatusOK, other.status, other.raw)
	require.Equal(t, session, other.body["sessionId"])
	require.NotContains(t, other.raw, "Barton Creek")
	require.Equal(t, "acc_alice|plumbing|Austin, TX", s.back.lastSearch(), "bob's turn must not search with alice's context")

	again := s.chat(t, alice, map[string]any{"message": "and in Dallas?", "sessionId": session})
	require.Equal(t, http.StatusOK, again.status, again.raw)
	require.Equal(t, "acc_alice|plumbing|Dallas", s.back.lastSearch(), "alice's context survived bob's turn")
}

func TestAClientChosenSessionIDStartsAndKeepsContext(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	alice := s.token("acc_alice", "growth")
	id := "crm-contact-42:" + strings.Repeat("x", 100)
	r := s.chat(t, alice, map[string]any{"message": "Find plumbers in Austin, TX", "sessionId": id})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Equal(t, id, r.body["sessionId"], "an unknown id starts a session under it")
	r = s.chat(t, alice, map[string]any{"message": "and in Dallas?", "sessionId": id})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Equal(t, "acc_alice|plumbing|Dallas", s.back.lastSearch(), "the follow-up is resolved from the session")

	r = s.chat(t, alice, map[string]any{"message": "hi", "sessionId": strings.Repeat("x", 129)})
	require.Equal(t, http.StatusBadRequest, r.status, r.raw)
	require.Equal(t, "sessionId", r.body["field"])
}

func TestChatRefusesBadInput(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	token := s.token("acc_alice", "growth")
	bigContext := map[string]any{"note": strings.Repeat("x", 4100)}
	cases := []struct {
		name   string
		token  string
		body   any
		status int
		field  string
	}{
		{"missing message", token, map[string]any{"sessionId": ""}, 400, "message"},
		{"empty message", token, map[string]any{"message": "   "}, 400, "message"},
		{"message not a string", token, map[string]any{"message": 42}, 400, "message"},
		{"over-long message", token, map[string]any{"message": strings.Repeat("a", 4001)}, 400, "message"},
		{"oversized context", token, map[string]any{"message": "hi", "context": bigContext}, 413, "context"},
		{"context not an object", token, map[string]any{"message": "hi", "context": []int{1}}, 400, "context"},
		{"over-long session id", token, map[string]any{"message": "hi", "sessionId": strings.Repeat("s", 129)}, 400, "sessionId"},
		{"session id with a control character", token, map[string]any{"message": "hi", "sessionId": "a\u0000b"}, 400, "sessionId"},
		{"unknown field", token, map[string]any{"message": "hi", "mesage": "x"}, 400, "mesage"},
		{"malformed JSON", token, `{"message":`, 400, ""},
		{"unauthenticated", "", map[string]any{"message": "hi"}, 401, ""},
		{"forged token", "not.a.token", map[string]any{"message": "hi"}, 401, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			headers := map[string]string{}
			if tc.token != "" {
				headers["Authorization"] = "Bearer " + tc.token
			}
			r := s.do(t, http.MethodPost, "/api/chat", "10.0.3.2", headers, tc.body)
			httpxtest.RequireRefused(t, r.status, r.body, tc.status, "", tc.field, r.raw)
		})
	}
}

func TestChatIsRefusedWhenTheAllowanceIsSpent(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	r := s.chat(t, s.token("acc_carol", "free"), map[string]any{"message": "hello"})
	require.Equal(t, http.StatusPaymentRequired, r.status, r.raw)
	require.Equal(t, "chat_limit_reached", r.body["code"])
	require.Equal(t, allowancetest.UpgradeURL, r.body["upgradeUrl"], "analytics' pricing page first")
	require.Equal(t, 0.0, r.body["remaining"])
	require.Equal(t, 50.0, r.body["limit"])
}

// modelDouble speaks the chat-completions protocol on a real socket, answering every request with
// status and body, and counts the requests.
func modelDouble(t *testing.T, status int, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

const modelAnswer = `{"id":"chatcmpl-1","object":"chat.completion","created":1732190000,"model":"test-model",
	"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Hello from the model."}}],
	"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`

func TestChatFailsClosedWhenTheAllowanceCannotBeReserved(t *testing.T) {
	t.Parallel()
	model, calls := modelDouble(t, http.StatusOK, modelAnswer)
	llm := map[string]string{"ASSISTANT_LLM_BASE_URL": model.URL + "/v1", "ASSISTANT_LLM_MAX_RETRIES": "0"}
	s := newStack(t, llm)
	aliceToken := s.token("acc_alice", "growth")
	r := s.chat(t, aliceToken, map[string]any{"message": "hello"})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Equal(t, "Hello from the model.", r.body["reply"])
	aliceSession := r.body["sessionId"]
	require.EqualValues(t, 1, calls.Load())

	// The caller's own IP bucket at analytics (429), analytics failing (500), analytics down.
	refused := withEnv(llm, "ANALYTICS_URL", "http://127.0.0.1:1")
	cases := []struct {
		name   string
		stack  *stack
		status int
	}{
		{"analytics answers 429", s, http.StatusTooManyRequests},
		{"analytics answers 500", s, http.StatusInternalServerError},
		{"analytics refuses the connection", newStack(t, refused), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.stack.back.fail.Store(int32(tc.status))
			defer tc.stack.back.fail.Store(0)
			before := calls.Load()
			bob := tc.stack.token("acc_bob", "free")
			r := tc.stack.chat(t, bob, map[string]any{"message": "hello"})
			require.Equal(t, http.StatusServiceUnavailable, r.status, r.raw)
			require.Equal(t, "allowance_unavailable", r.body["code"])
			require.Equal(t, before, calls.Load(), "the model is never called without a reservation")

			// Another account's session id is bob's own new session, and is refused the same way.
			r = tc.stack.chat(t, bob, map[string]any{"message": "and in Dallas?", "sessionId": aliceSession})
			require.Equal(t, http.StatusServiceUnavailable, r.status, r.raw)
			require.Equal(t, before, calls.Load())
		})
	}
	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.account_id = 'acc_bob'`).Scan(&n))
	require.Zero(t, n, "no refused turn is stored")
}

func withEnv(env map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestConcurrentChatsNeverOvershootTheAllowance(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	token := s.token("acc_dave", "free")
	limit := dave.chatLimit
	statuses := make([]int, limit+5)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = s.chat(t, token, map[string]any{"message": "how is my health score?"}).status
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, st := range statuses {
		count[st]++
	}
	require.Equal(t, map[int]int{http.StatusOK: limit, http.StatusPaymentRequired: 5}, count)
	used, _, _ := s.back.allowance("acc_dave")
	require.Equal(t, limit, used)
	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM messages WHERE role = 'assistant'`).Scan(&n))
	require.Equal(t, limit, n, "exactly the reserved turns were answered")
}

func TestEachExchangeIsReservedAndReachesTheFeed(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	r := s.chat(t, s.token("acc_alice", "growth"), map[string]any{"message": "how is my health score?"})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	used, reserved, released := s.back.allowance("acc_alice")
	require.Equal(t, []int{13, 1, 0}, []int{used, reserved, released}, "the reservation is the usage record")

	ctx := context.Background()
	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE type = 'usage.recorded'`).Scan(&n))
	require.Zero(t, n, "no usage.recorded of our own: it would count the exchange twice")
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(ctx,
		`SELECT count(*) FROM feed_events WHERE module = 'Chat' AND summary LIKE '%health score%'`).Scan(&n))
	require.Equal(t, 1, n, "the exchange is in the feed, written with the turn")
}

func TestFeedSeedingAndScrubbing(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	feed := func(headers map[string]string) reply {
		return s.do(t, http.MethodGet, "/api/agent-brain-public-feed", "10.0.3.3", headers, nil)
	}

	r := feed(nil)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Equal(t, true, r.body["demo"])
	require.NotEmpty(t, r.body["events"])
	require.NotContains(t, r.body, "ok")
	require.Equal(t, "public, max-age=60", r.header.Get("Cache-Control"))

	seed := map[string]any{"events": []map[string]any{
		{"module": "Recall", "event_type": "CustomerReplyReceived", "fields": map[string]any{
			"text": "Hi, Jane Roe here, please call me on (512) 555-0134 or jane.roe@example.com, 12 Oak Street"}},
		{"module": "Stars", "event_type": "ReviewReceived", "ts": time.Now().UTC().Add(-time.Hour).Format(time.RFC3339), "fields": map[string]any{"rating": 5}},
		{"module": "the service", "event_type": "LeadCaptured", "fields": map[string]any{"source": "acc_01JD3X8Z9Q4W5E6R7T8Y9U0I1O"}},
	}}
	for _, bad := range []struct {
		header map[string]string
		status int
		code   string
	}{
		{nil, 401, "admin_required"},
		{map[string]string{"x-agent-admin": "wrong"}, 403, "admin_forbidden"},
	} {
		r := s.do(t, http.MethodPost, "/api/agent-brain-seed", "10.0.3.4", bad.header, seed)
		require.Equal(t, bad.status, r.status, r.raw)
		require.Equal(t, bad.code, r.body["code"])
	}
	admin := map[string]string{"x-agent-admin": adminSecret}
	r = s.do(t, http.MethodPost, "/api/agent-brain-seed", "10.0.3.4", admin, map[string]any{"events": []map[string]any{
		{"module": "Voice", "event_type": "MissedCallDetected", "fields": map[string]any{"callerPhone": "+15125550134"}}}})
	require.Equal(t, http.StatusBadRequest, r.status, r.raw)
	require.Equal(t, "events[0].fields.callerPhone", r.body["field"])

	r = s.do(t, http.MethodPost, "/api/agent-brain-seed", "10.0.3.4", admin, seed)
	require.Equal(t, http.StatusCreated, r.status, r.raw)
	require.Equal(t, 3.0, r.body["inserted"])

	r = feed(nil)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Equal(t, false, r.body["demo"])
	evs := r.body["events"].([]any)
	require.Len(t, evs, 3)
	first := evs[0].(map[string]any)
	require.Equal(t, "Stars", evs[2].(map[string]any)["module"], "newest first: the review is an hour old")
	var reply map[string]any
	for _, e := range evs {
		if e.(map[string]any)["module"] == "Recall" {
			reply = e.(map[string]any)
		}
	}
	require.Equal(t, "Customer replied: “Hi, … here, please call me on [number]”", reply["summary"])
	for _, leak := range []string{"Jane", "Roe", "555", "example.com", "Oak", "acc_"} {
		require.NotContains(t, r.raw, leak)
	}
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, first["ts"])

	etag := r.header.Get("ETag")
	require.NotEmpty(t, etag)
	again := feed(map[string]string{"If-None-Match": etag})
	require.Equal(t, http.StatusNotModified, again.status)
	require.Empty(t, again.raw)
}

func TestConsumedEventsBecomeFeedEventsOnce(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	ctx := context.Background()
	handlers := s.svc.EventHandlers()
	event := func(typ string, data map[string]any) events.Envelope {
		e, err := events.New(ctx, typ, "acc_alice", data)
		require.NoError(t, err)
		return e
	}
	// What arrived through the inbound webhook in the review (issue 10, item 4), and a clean pair,
	// from an account on a paid plan, whose customers' words may be quoted.
	sent := []events.Envelope{
		event("account.created", map[string]any{"accountId": "acc_alice", "plan": "growth", "role": "owner", "createdAt": time.Now().UTC()}),
		event("lead.written", map[string]any{"leadId": "lead_1", "name": "Rosa Diaz", "email": "rosa@example.com", "phone": "+15125550101", "source": "organic", "businessName": "Barton Creek Plumbing"}),
		event("lead.written", map[string]any{"leadId": "lead_2", "name": "Zara Khan", "email": "zara@example.com", "source": "zara khan"}),
		event("inbound.contact_form", map[string]any{"inboundId": "in_1", "name": "Rosa Diaz", "email": "rosa@example.com",
			"subject": "Quote", "message": "Can you fix a leaking roof this week?"}),
		event("inbound.contact_form", map[string]any{"inboundId": "in_2", "name": "J Smith", "email": "js@example.com",
			"subject": "wong plumbing llc", "message": "email jsmith84 at gmail com or call 5 1 2, 5 5 5, 0 1 9 9"}),
		event("inbound.contact_form", map[string]any{"inboundId": "in_3", "name": "J Smith", "email": "js@example.com",
			"subject": "zara khan", "message": "hi this is zara khan from wong plumbing llc, 51,25,55,01,99"}),
	}
	for range 2 { // a redelivery changes nothing
		for _, e := range sent {
			require.NoError(t, handlers[e.Type](ctx, e))
		}
	}
	rows, err := s.svc.Runtime.Pool.Query(ctx, `SELECT summary FROM feed_events ORDER BY id`)
	require.NoError(t, err)
	var summaries []string
	for rows.Next() {
		var sum string
		require.NoError(t, rows.Scan(&sum))
		summaries = append(summaries, sum)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{
		"New lead captured from organic",
		"New lead captured",
		"Contact form received (quote request): “Can you fix a leaking roof this week?”",
		"Contact form received: “email [email] or call [number]”",
		"Contact form received",
	}, summaries)
}

func TestAnswersDegradeWhenLeadsIsDown(t *testing.T) {
	t.Parallel()
	s := newStack(t, map[string]string{"LEADS_URL": "http://127.0.0.1:1"})
	token := s.token("acc_alice", "growth")

	r := s.chat(t, token, map[string]any{"message": "find plumbers in Austin, TX"})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Contains(t, r.body["reply"], "couldn't")
	require.NotContains(t, r.body["reply"], "Barton Creek Plumbing")

	r = s.chat(t, token, map[string]any{"message": "how is my health score?"})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	require.Contains(t, r.body["reply"], "42/100")
}

func TestALanguageModelThatFailsGivesAnErrorEnvelopeAndReleasesTheReservation(t *testing.T) {
	t.Parallel()
	model, calls := modelDouble(t, http.StatusBadGateway, `{"error":{"message":"upstream down","type":"server_error"}}`)
	s := newStack(t, map[string]string{"ASSISTANT_LLM_BASE_URL": model.URL + "/v1", "ASSISTANT_LLM_MAX_RETRIES": "0"})
	r := s.chat(t, s.token("acc_alice", "growth"), map[string]any{"message": "hello"})
	require.Equal(t, http.StatusServiceUnavailable, r.status, r.raw)
	require.Equal(t, "model_unavailable", r.body["code"])
	require.EqualValues(t, 1, calls.Load())
	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(), `SELECT count(*) FROM messages`).Scan(&n))
	require.Zero(t, n, "nothing is stored for a failed turn")
	used, reserved, released := s.back.allowance("acc_alice")
	require.Equal(t, []int{12, 1, 1}, []int{used, reserved, released}, "the unit reserved for the failed turn is given back")
}

// Every /api route the service registers is in api/openapi.yaml with an operationId, every
// documented operation is registered, and each one's documented security is what it does.
// TestContractProperties sends every operation the requests the document makes up, valid and not.
func TestContractProperties(t *testing.T) {
	t.Parallel()
	var db *platformtest.DatabaseProxy
	s := newStack(t, nil, func(environ map[string]string) { db = platformtest.ProxyDatabase(t, environ) })
	token := s.token("acc_erin", "growth")
	s.contract.Probe(t, openapitest.Probe{Base: s.base, Outage: db.Outage, Credentials: map[string]func(*http.Request){
		"bearer": func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) },
		"admin":  func(r *http.Request) { r.Header.Set("x-agent-admin", adminSecret) },
	}})
}

func TestRoutesMatchTheContract(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	platformtest.WaitReady(t, s.base)
	s.contract.CheckRoutes(t, s.svc.Handler())
}

// One self-registered account cannot fill the public feed (issue 24, item 3): at most
// domain.FeedShare of its events are shown, and its customers' words only once it is in good
// standing (a paid plan, or older than domain.QuoteProbation, and not disabled).
func TestOneAccountCannotFillTheFeed(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	ctx := context.Background()
	handlers := s.svc.EventHandlers()
	deliver := func(typ, account string, data map[string]any) {
		t.Helper()
		e, err := events.New(ctx, typ, account, data)
		require.NoError(t, err)
		require.NoError(t, handlers[typ](ctx, e))
	}
	now := time.Now().UTC()
	for account, a := range map[string]struct {
		plan    string
		created time.Time
	}{
		"acc_new_free": {"free", now.Add(-time.Hour)},
		"acc_old_free": {"free", now.Add(-domain.QuoteProbation - time.Hour)},
		"acc_upgraded": {"free", now.Add(-time.Hour)},
		"acc_disabled": {"growth", now.Add(-time.Hour)},
	} {
		deliver("account.created", account, map[string]any{"accountId": account, "plan": a.plan, "role": "owner", "createdAt": a.created})
	}
	deliver("account.plan_changed", "acc_upgraded", map[string]any{"accountId": "acc_upgraded", "plan": "growth", "previousPlan": "free", "at": now})
	deliver("account.revoked", "acc_disabled", map[string]any{"accountId": "acc_disabled", "notBefore": now, "reason": "account_disabled"})

	form := func(account, subject, message string) {
		deliver("inbound.contact_form", account, map[string]any{"inboundId": ids.New("in"), "name": "x", "email": "x@example.com",
			"subject": subject, "message": message})
	}
	for range 3 * domain.FeedShare {
		form("acc_new_free", "support", "free money today, reply now")
	}
	form("acc_old_free", "booking", "Can you come on Monday?")
	form("acc_upgraded", "question", "Is the roof quote still on?")
	form("acc_unheard_of", "billing", "free money today, reply now")
	form("acc_disabled", "complaint", "free money today, reply now")

	r := s.do(t, http.MethodGet, "/api/agent-brain-public-feed", "10.0.3.9", nil, nil)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	count := map[string]int{}
	for _, e := range r.body["events"].([]any) {
		count[e.(map[string]any)["summary"].(string)]++
	}
	require.Equal(t, map[string]int{
		"Contact form received (support)":                                 domain.FeedShare,
		"Contact form received (booking): “Can you come on Monday?”":      1,
		"Contact form received (question): “Is the roof quote still on?”": 1,
		"Contact form received (billing)":                                 1,
		"Contact form received (complaint)":                               1,
	}, count)
	require.NotContains(t, r.raw, "money")
}
