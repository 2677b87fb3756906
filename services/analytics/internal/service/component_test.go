package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/clocktest"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/httpx/httpxtest"
	"github.com/bizassist/bizassist/libs/openapitest"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/analytics/api"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/service"
)

// bulkIP is exempt from the rate limit, for tests that send many requests.
const bulkIP = "10.99.0.1"

// stack is analytics running in-process on a real socket against real PostgreSQL and Redis.
type stack struct {
	svc      *service.Service
	base     string
	issuer   *jwttest.Issuer
	contract *openapitest.Contract
	clock    *clocktest.Clock
	environ  map[string]string
	stop     func()
}

func newStack(t *testing.T) *stack { return newBenchStack(t) }

// newBenchStack starts a stack; env are extra KEY, value pairs.
func newBenchStack(t testing.TB, env ...string) *stack { return newStackWith(t, nil, env...) }

// newStackWith is newBenchStack with prepare, when set, changing the environment last.
func newStackWith(t testing.TB, prepare func(environ map[string]string), env ...string) *stack {
	t.Helper()
	issuer := jwttest.NewIssuer(t)
	environ := platformtest.Env(t, service.Name, issuer.JWKSURL())
	environ["RATELIMIT_EXEMPT_CIDRS"] = "10.99.0.0/16"
	environ["HEALTH_DIRTY_INTERVAL"] = "50ms"
	for i := 0; i+1 < len(env); i += 2 {
		environ[env[i]] = env[i+1]
	}
	if prepare != nil {
		prepare(environ)
	}
	s := &stack{issuer: issuer, contract: openapitest.Load(t, api.OpenAPI), environ: environ,
		clock: clocktest.New(time.Now().UTC())}
	s.start(t)
	return s
}

// start runs a service process on the stack's database; stop ends it as SIGTERM would.
func (s *stack) start(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s.base = "http://" + ln.Addr().String()
	var cfg service.Config
	require.NoError(t, svc.LoadConfigFrom(&cfg, s.environ))
	cfg.Clock = s.clock.Now
	sv, err := service.New(ctx, cfg)
	require.NoError(t, err)
	require.NoError(t, sv.Migrate(ctx))
	s.svc = sv
	done := make(chan error, 1)
	go func() { done <- sv.Serve(ctx, ln) }()
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
			sv.Close()
		})
	}
	t.Cleanup(s.stop)
}

func (s *stack) token(t testing.TB, account, plan string) string {
	t.Helper()
	return s.issuer.Token(authjwt.Caller{AccountID: account, Email: account + "@x.test", Plan: plan, TokenID: "jti_" + account})
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
}

// do sends a request from client address ip (none: the peer's own, as services call), checks the exchange against the contract and
// decodes the body.
func (s *stack) do(t *testing.T, method, path, ip, token string, body string, header ...string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if ip != "" {
		req.Header.Set("X-Forwarded-For", ip)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	x := s.contract.Do(t, req)
	return reply{status: x.Status, header: x.Header, body: x.JSON}
}

// project runs fn in a transaction that its ctx carries, as the event consumer does.
func (s *stack) project(t *testing.T, fn func(ctx context.Context) error) {
	t.Helper()
	require.NoError(t, pgkit.Transactor{DB: s.svc.Runtime.Pool}.InTx(context.Background(), fn))
}

func keys(m map[string]any) []string { return slices.Collect(maps.Keys(m)) }

// Chat's one source of truth is the assistant's reservation: the spec's log-usage example
// (chat / send_message) is logged and kept, but counted once, not twice.
func TestLogUsageOfChatIsKeptButCountedOnce(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_pql", "growth")

	before := s.do(t, "GET", "/api/pql-check", "10.0.0.1", tok, "")
	require.Equal(t, http.StatusOK, before.status, before.body)
	require.ElementsMatch(t, []string{"ok", "nearLimit", "usagePercent", "features", "upgradeUrl"}, keys(before.body))
	require.Equal(t, "https://bizassist.test/pricing", before.body["upgradeUrl"])
	features := before.body["features"].(map[string]any)
	require.ElementsMatch(t, []string{"chat", "lead_scoring", "lead_finder"}, keys(features))
	require.Equal(t, map[string]any{"used": 0.0, "limit": 1000.0, "pct": 0.0, "unlimited": false}, features["chat"])
	require.NotEmpty(t, before.header.Get("X-RateLimit-Remaining"))

	r := s.do(t, "POST", "/api/log-usage", "10.0.0.1", tok, `{"feature":"chat","action":"send_message","meta":{"page":"/leads"}}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.ElementsMatch(t, []string{"ok", "logged", "eventId", "timestamp"}, keys(r.body))
	require.Equal(t, true, r.body["logged"])
	require.True(t, strings.HasPrefix(r.body["eventId"].(string), "evt_"))
	ts, err := time.Parse(time.RFC3339Nano, r.body["timestamp"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, s.clock.Now(), ts, time.Millisecond)

	after := s.do(t, "GET", "/api/pql-check?feature=chat", "10.0.0.1", tok, "")
	require.Equal(t, http.StatusOK, after.status, after.body)
	require.Equal(t, map[string]any{"chat": map[string]any{"used": 0.0, "limit": 1000.0, "pct": 0.0, "unlimited": false}}, after.body["features"])

	require.Equal(t, http.StatusOK, s.reserve(t, tok, "chat", 1).status, "the chat itself")
	after = s.do(t, "GET", "/api/pql-check?feature=chat", "10.0.0.1", tok, "")
	require.Equal(t, map[string]any{"chat": map[string]any{"used": 1.0, "limit": 1000.0, "pct": 0.0, "unlimited": false}}, after.body["features"])
}

func TestPQLCheckNearLimitAndUnlimited(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	free, full := s.token(t, "acc_free", "free"), s.token(t, "acc_full", "full_stack")
	// free chat limit is 50: 40 is 80%
	require.Equal(t, http.StatusOK, s.reserve(t, free, "chat", 40).status)
	require.Equal(t, http.StatusOK, s.reserve(t, full, "chat", 40).status)
	r := s.do(t, "GET", "/api/pql-check", bulkIP, free, "")
	require.Equal(t, 80.0, r.body["usagePercent"])
	require.Equal(t, true, r.body["nearLimit"])
	require.Equal(t, map[string]any{"used": 40.0, "limit": 50.0, "pct": 80.0, "unlimited": false}, r.body["features"].(map[string]any)["chat"])

	r = s.do(t, "GET", "/api/pql-check", bulkIP, full, "")
	require.Equal(t, 0.0, r.body["usagePercent"])
	require.Equal(t, false, r.body["nearLimit"])
	require.Equal(t, map[string]any{"used": 40.0, "limit": nil, "pct": 0.0, "unlimited": true}, r.body["features"].(map[string]any)["chat"],
		"unlimited has no number")

	// A plan change arriving as an event moves the limits.
	s.project(t, func(ctx context.Context) error {
		return s.svc.Accounts.PlanChanged(ctx, "acc_free", "growth", time.Now())
	})
	r = s.do(t, "GET", "/api/pql-check?feature=chat", bulkIP, free, "")
	require.Equal(t, map[string]any{"used": 40.0, "limit": 1000.0, "pct": 4.0, "unlimited": false}, r.body["features"].(map[string]any)["chat"])
}

func TestBadInputIsA4xxNamingTheField(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	growth := s.token(t, "acc_bad", "growth")
	meta := func(n int) string { // a meta object whose compact JSON is n bytes
		return `{"k":"` + strings.Repeat("x", n-len(`{"k":""}`)) + `"}`
	}
	ok := s.do(t, "POST", "/api/log-usage", bulkIP, growth, `{"feature":"audit_tool","meta":`+meta(2048)+`}`)
	require.Equal(t, http.StatusOK, ok.status, ok.body)

	cases := []struct {
		name, method, path, body string
		status                   int
		code, field              string
	}{
		{"missing feature", "POST", "/api/log-usage", `{"action":"export_csv"}`, 400, "missing_field", "feature"},
		{"feature not a string", "POST", "/api/log-usage", `{"feature":7}`, 400, "invalid_type", "feature"},
		{"bad feature name", "POST", "/api/log-usage", `{"feature":"Lead Finder"}`, 400, "invalid_field", "feature"},
		{"meta of 2,049 bytes", "POST", "/api/log-usage", `{"feature":"chat","meta":` + meta(2049) + `}`, 400, "invalid_field", "meta"},
		{"meta not an object", "POST", "/api/log-usage", `{"feature":"chat","meta":[1,2]}`, 400, "invalid_field", "meta"},
		{"meta with a NUL", "POST", "/api/log-usage", `{"feature":"chat","meta":{"q":"a\u0000b"}}`, 400, "invalid_field", "meta.q"},
		{"unknown field", "POST", "/api/log-usage", `{"feature":"chat","user":"x"}`, 400, "unknown_field", "user"},
		{"malformed json", "POST", "/api/log-usage", `{"feature":`, 400, "malformed_json", ""},
		{"body too large", "POST", "/api/log-usage", `{"feature":"chat","meta":` + meta(20000) + `}`, 413, "body_too_large", ""},
		{"unknown feature filter", "GET", "/api/pql-check?feature=audit_tool", "", 400, "invalid_field", "feature"},
		{"empty feature filter", "GET", "/api/pql-check?feature=", "", 400, "invalid_field", "feature"},
		{"threshold 101", "GET", "/api/churn-predict?threshold=101", "", 400, "invalid_field", "threshold"},
		{"threshold -1", "GET", "/api/churn-predict?threshold=-1", "", 400, "invalid_field", "threshold"},
		{"threshold not a number", "GET", "/api/churn-predict?threshold=high", "", 400, "invalid_type", "threshold"},
		{"limit 0", "GET", "/api/churn-predict?limit=0", "", 400, "invalid_field", "limit"},
		{"limit over the bound", "GET", "/api/churn-predict?limit=101", "", 400, "invalid_field", "limit"},
	}
	for _, tc := range cases {
		r := s.do(t, tc.method, tc.path, bulkIP, growth, tc.body)
		httpxtest.RequireRefused(t, r.status, r.body, tc.status, tc.code, tc.field, tc.name)
	}
	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM usage_events WHERE account_id = 'acc_bad'`).Scan(&n))
	require.Equal(t, 1, n, "nothing written for a refused request")
}

func TestEveryRouteRefusesUnauthenticatedCalls(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	expired := s.issuer.Token(authjwt.Caller{AccountID: "acc_x", Plan: "growth"}, jwttest.ExpiresAt(time.Now().Add(-time.Hour)))
	for _, route := range [][2]string{{"POST", "/api/log-usage"}, {"GET", "/api/pql-check"}, {"GET", "/api/health-score"}, {"GET", "/api/churn-predict"},
		{"GET", "/internal/pql-check"}, {"GET", "/internal/health-score"}, {"GET", "/internal/churn-predict"},
		{"POST", "/internal/usage/reserve"}, {"POST", "/internal/usage/release"}} {
		for name, tok := range map[string]string{"no token": "", "expired": expired, "garbage": "a.b.c"} {
			r := s.do(t, route[0], route[1], bulkIP, tok, `{"feature":"chat"}`)
			require.Equal(t, http.StatusUnauthorized, r.status, "%s %s %s", route[0], route[1], name)
			require.Equal(t, false, r.body["ok"])
		}
	}
}

func TestChurnPredictIsForGrowthAndFullStack(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	r := s.do(t, "GET", "/api/churn-predict", "10.0.1.1", s.token(t, "acc_freeowner", "free"), "")
	require.Equal(t, http.StatusForbidden, r.status)
	require.Equal(t, "plan_upgrade_required", r.body["code"])
	require.Equal(t, "https://bizassist.test/pricing", r.body["upgradeUrl"])

	// The owner's clients: one active, one fading, one that never logged in.
	now := s.clock.Now()
	s.project(t, func(ctx context.Context) error {
		for i, id := range []string{"acc_active", "acc_fading", "acc_silent"} {
			if err := s.svc.Accounts.Created(ctx, app.NewAccount{AccountID: id, OwnerID: "acc_boss",
				Email: id + "@client.test", BusinessName: fmt.Sprintf("Client %d", i), Plan: "free", CreatedAt: now.AddDate(0, -6, 0)}); err != nil {
				return err
			}
		}
		for d := range 20 {
			if err := s.svc.Accounts.LoggedIn(ctx, "acc_active", "", now.AddDate(0, 0, -d)); err != nil {
				return err
			}
		}
		return s.svc.Accounts.LoggedIn(ctx, "acc_fading", "", now.AddDate(0, 0, -20))
	})
	boss := s.token(t, "acc_boss", "growth")
	r = s.do(t, "GET", "/api/churn-predict?threshold=0&limit=2", "10.0.1.2", boss, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.ElementsMatch(t, []string{"ok", "atRisk", "clients"}, keys(r.body))
	require.Equal(t, 3.0, r.body["atRisk"])
	clients := r.body["clients"].([]any)
	require.Len(t, clients, 2)
	first, second := clients[0].(map[string]any), clients[1].(map[string]any)
	require.ElementsMatch(t, []string{"email", "businessName", "churnProbability", "healthScore", "lastLogin", "recommendation"}, keys(first))
	require.Equal(t, "acc_silent@client.test", first["email"])
	require.Nil(t, first["lastLogin"])
	require.Equal(t, "acc_fading@client.test", second["email"])
	require.Equal(t, now.AddDate(0, 0, -20).Format("2006-01-02T15:04:05.000Z"), second["lastLogin"])
	require.GreaterOrEqual(t, first["churnProbability"], second["churnProbability"])
	require.Contains(t, first["recommendation"], "loginRecency 0/100")

	r = s.do(t, "GET", "/api/churn-predict", "10.0.1.2", boss, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	for _, c := range r.body["clients"].([]any) {
		require.GreaterOrEqual(t, c.(map[string]any)["churnProbability"], 60.0)
	}
	require.Equal(t, float64(len(r.body["clients"].([]any))), r.body["atRisk"])
	require.NotContains(t, fmt.Sprint(r.body), "acc_active@client.test")
}

func TestHealthScoreDriftsDownAsTheClockMoves(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_drift", "growth")
	now := s.clock.Now()
	s.project(t, func(ctx context.Context) error {
		for d := range 25 {
			if err := s.svc.Accounts.LoggedIn(ctx, "acc_drift", "", now.AddDate(0, 0, -d)); err != nil {
				return err
			}
			if err := s.svc.Accounts.Activity(ctx, "acc_drift", app.ActivityLead, now.AddDate(0, 0, -d)); err != nil {
				return err
			}
		}
		return nil
	})
	for range 12 {
		for _, f := range []string{"chat", "chat", "lead_finder", "lead_scoring"} { // metered: counted as the features reserve
			require.Equal(t, http.StatusOK, s.reserve(t, tok, f, 1).status)
		}
		require.Equal(t, http.StatusOK, s.do(t, "POST", "/api/log-usage", bulkIP, tok, `{"feature":"audit_tool"}`).status)
	}
	require.NoError(t, s.svc.App.Recompute.Handle(context.Background(), []string{"acc_drift"}))
	r := s.do(t, "GET", "/api/health-score", bulkIP, tok, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.ElementsMatch(t, []string{"ok", "score", "tier", "signals", "updatedAt"}, keys(r.body))
	require.Len(t, r.body["signals"], len(health.Signals))
	require.Equal(t, "healthy", r.body["tier"], r.body)
	require.Equal(t, now.Format("2006-01-02T15:04:05.000Z"), r.body["updatedAt"])

	seen := []string{"healthy"}
	for range 9 {
		s.clock.Advance(10 * 24 * time.Hour)
		_, err := s.svc.App.Worker.RecomputeAll(context.Background())
		require.NoError(t, err)
		r = s.do(t, "GET", "/api/health-score", bulkIP, tok, "")
		if tier := r.body["tier"].(string); tier != seen[len(seen)-1] {
			seen = append(seen, tier)
		}
	}
	require.Equal(t, []string{"healthy", "at_risk", "critical"}, seen)
	require.Equal(t, s.clock.Now().Format("2006-01-02T15:04:05.000Z"), r.body["updatedAt"])
}

func TestHealthScoreOfANewAccountIsComputedOnFirstAsk(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	r := s.do(t, "GET", "/api/health-score", "10.0.2.1", s.token(t, "acc_new", "free"), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	signals := r.body["signals"].(map[string]any)
	require.Equal(t, 0.0, signals["loginRecency"])
	require.Equal(t, 100.0, signals["paymentHealth"])
	require.Equal(t, "critical", r.body["tier"])
}

func TestIdempotencyKeyReplaysTheFirstAnswer(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_idem", "growth")
	body := `{"feature":"lead_finder","action":"export_csv"}`
	first := s.do(t, "POST", "/api/log-usage", bulkIP, tok, body, "Idempotency-Key", "k-1")
	require.Equal(t, http.StatusOK, first.status, first.body)
	s.clock.Advance(time.Second)
	require.Empty(t, first.header.Get("Idempotent-Replayed"), "the first answer is computed")
	again := s.do(t, "POST", "/api/log-usage", bulkIP, tok, body, "Idempotency-Key", "k-1")
	require.Equal(t, first.body, again.body)
	require.Equal(t, "true", again.header.Get("Idempotent-Replayed"), "a replay says so, as on every other route")

	other := s.do(t, "POST", "/api/log-usage", bulkIP, tok, `{"feature":"chat"}`, "Idempotency-Key", "k-1")
	require.Equal(t, http.StatusConflict, other.status)
	require.Equal(t, "idempotency_key_reused", other.body["code"])
	bad := s.do(t, "POST", "/api/log-usage", bulkIP, tok, body, "Idempotency-Key", "has space")
	require.Equal(t, http.StatusBadRequest, bad.status)
	require.Equal(t, "Idempotency-Key", bad.body["field"])

	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM usage_events WHERE account_id = 'acc_idem'`).Scan(&n))
	require.Equal(t, 1, n, "one event for the key")
}

// concurrently runs fn in n goroutines released together, and waits for all of them.
func concurrently(n int, fn func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			fn()
		}()
	}
	close(start)
	wg.Wait()
}

// Every event the API acknowledged is in PostgreSQL after the service stops and starts again.
func TestAcknowledgedUsageSurvivesARestart(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_durable", "growth")
	var (
		mu    sync.Mutex
		acked []string
	)
	concurrently(8, func() {
		for range 25 {
			req, _ := http.NewRequest("POST", s.base+"/api/log-usage", bytes.NewBufferString(`{"feature":"audit_tool"}`))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Forwarded-For", bulkIP)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			var body map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && body["logged"] == true {
				mu.Lock()
				acked = append(acked, body["eventId"].(string))
				mu.Unlock()
			}
		}
	})
	require.Len(t, acked, 200)
	s.stop()

	s.start(t)
	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM usage_events WHERE event_id = ANY($1)`, acked).Scan(&n))
	require.Equal(t, len(acked), n)
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT sum(uses)::int FROM usage_daily WHERE account_id = 'acc_durable' AND feature = 'audit_tool'`).Scan(&n))
	require.Equal(t, 200, n, "and in the rollup")
}

// publish puts an envelope on its stream as identity's or leads' relay would and returns its id.
func publish(t *testing.T, s *stack, typ, account string, data any) string {
	t.Helper()
	env, err := events.New(context.Background(), typ, account, data)
	require.NoError(t, err)
	raw, err := json.Marshal(env)
	require.NoError(t, err)
	opts, err := redis.ParseURL(redistest.URL())
	require.NoError(t, err)
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	require.NoError(t, rdb.XAdd(context.Background(), &redis.XAddArgs{
		Stream: s.environ["EVENTS_STREAM_PREFIX"] + ":" + typ, Values: []any{"envelope", string(raw)},
	}).Err())
	return env.ID
}

// consumed waits until the consumer has processed the event id.
func (s *stack) consumed(t *testing.T, id string) {
	t.Helper()
	require.Eventually(t, func() bool {
		var ok bool
		err := s.svc.Runtime.Pool.QueryRow(context.Background(),
			`SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)`, id).Scan(&ok)
		return err == nil && ok
	}, 20*time.Second, 20*time.Millisecond, "event %s is consumed", id)
}

func TestConsumedEventsBuildTheProjection(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	now := time.Now().UTC()
	publish(t, s, "account.created", "acc_owner9", map[string]any{"accountId": "acc_owner9", "email": "o@x.test",
		"plan": "growth", "role": "owner", "businessName": "Owner Co", "createdAt": now.AddDate(-1, 0, 0)})
	publish(t, s, "account.created", "acc_owner9", map[string]any{"accountId": "acc_client9", "email": "c@x.test",
		"plan": "free", "role": "client", "ownerId": "acc_owner9", "businessName": "Client Co", "createdAt": now.AddDate(-1, 0, 0)})
	publish(t, s, "account.login", "acc_owner9", map[string]any{"accountId": "acc_client9", "email": "c@x.test", "at": now})
	publish(t, s, "usage.recorded", "acc_client9", map[string]any{"eventId": "evt_from_assistant_1", "feature": "chat",
		"action": "send_message", "count": 3, "at": now.Format(time.RFC3339Nano)})
	publish(t, s, "payment.invoice.payment_failed", "acc_client9", map[string]any{"type": "invoice.payment_failed", "accountId": "acc_client9"})

	require.Eventually(t, func() bool {
		var ok bool
		err := s.svc.Runtime.Pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM health_current h
			JOIN accounts a USING (account_id) WHERE a.account_id = 'acc_client9' AND a.owner_id = 'acc_owner9'
			AND a.payment_status = 'past_due' AND a.last_login_at IS NOT NULL
			AND (h.signals->>'featureAdoption')::int > 0 AND (h.signals->>'paymentHealth')::int = 40)`).Scan(&ok)
		return err == nil && ok
	}, 20*time.Second, 50*time.Millisecond, "the consumer projects the events and the worker rescores the account")

	r := s.do(t, "GET", "/api/pql-check?feature=chat", "10.0.4.1", s.token(t, "acc_client9", "free"), "")
	require.Equal(t, 0.0, r.body["features"].(map[string]any)["chat"].(map[string]any)["used"],
		"a reported chat use is kept (feature adoption) but chat's allowance counts the assistant's reservations only")
}

// Every /api route the service registers is in api/openapi.yaml with an operationId, every
// documented operation is registered, and each one's documented security is what it does.
// TestContractProperties sends every operation the requests the document makes up, valid and not.
func TestContractProperties(t *testing.T) {
	t.Parallel()
	var db *platformtest.DatabaseProxy
	s := newStackWith(t, func(environ map[string]string) { db = platformtest.ProxyDatabase(t, environ) })
	token := s.token(t, "acc_probe", "growth")
	s.contract.Probe(t, openapitest.Probe{Base: s.base, Outage: db.Outage,
		Credentials: map[string]func(*http.Request){"bearer": func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }}})
}

func TestRoutesMatchTheContract(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	platformtest.WaitReady(t, s.base)
	s.contract.CheckRoutes(t, s.svc.Handler())
}
