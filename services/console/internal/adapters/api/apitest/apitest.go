// Package apitest is a fake of the public API the console calls, for the console's tests: one
// HTTP server per service on a real socket, answering the routes the console uses in memory.
// Every answer is checked against the owning service's api/openapi.yaml, request bodies are read
// with the services' strict decoder (libs/httpx.Decode) and refusals are written by the
// services' own error mapper (libs/httpx.Fail), so a test passes only against what the services
// really speak. One account's data at a time: a test seeds what its pages show.
package apitest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/libs/openapitest"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api"
)

// The fake's standing data.
const (
	// Email and Password sign the owner in; the owner's plan is growth.
	Email    = "owner@example.com"
	Password = "correct horse battery"
	// UpgradeURL is the pricing page the services name in plan refusals.
	UpgradeURL = "https://bizassist.example/pricing"
)

// Call is one request the fake answered.
type Call struct {
	Route         string // the pattern it matched, e.g. "DELETE /api/keys/{id}"
	Path          string
	Query         string
	Authorization string
	ForwardedFor  string
	Body          string
}

// Lead is a row of the sheet.
type Lead struct {
	ID, Name, Email, Phone, BusinessName, Source string
	CreatedAt                                    time.Time
}

// Client is one of the owner's clients as identity lists it; analytics' churn prediction is
// the At* fields (AtRisk false: analytics has not scored it).
type Client struct {
	ID, Email, BusinessName, Status, Tier string
	HealthScore                           *int
	AtRisk                                bool
	AtRiskEmail                           string // the email analytics lists, when it differs in case
	ChurnProbability, AtRiskScore         int
	Recommendation                        string
}

// Point is one recorded health score.
type Point struct {
	At    time.Time
	Score int
	Tier  string
}

// Attempt is a delivery attempt of a subscription.
type Attempt struct {
	DeliveryID string
	Event      string
	At         time.Time
	StatusCode *int
	LatencyMs  int
	Error      string
}

type account struct {
	password, plan, businessName string
}

type subscription struct {
	id, hookURL, event string
	createdAt          time.Time
}

type key struct {
	id, name, prefix string
	createdAt        time.Time
}

type invitation struct {
	email, plan string
}

type allowance struct {
	used, limit, pct int // limit -1: unlimited
}

type refusal struct {
	err         error
	status      int // a raw answer when err is nil
	contentType string
	body        string
}

// API is the fake. Its fields may be set before the first request; afterwards use the methods.
type API struct {
	t   testing.TB
	now func() time.Time

	Identity, Leads, Assistant, Analytics, Integrations *httptest.Server

	mu          sync.Mutex
	calls       []Call
	refusals    map[string]refusal
	accounts    map[string]*account
	tokens      map[string]string // token -> email
	keys        []key
	clients     []Client
	invitations map[string]invitation // invite token -> email
	leads       []Lead                // newest first
	usage       map[string]allowance  // by feature
	nearLimit   bool
	health      Point
	history     map[string][]Point // "" (the caller) or a client id -> points, oldest first
	subs        []subscription
	attempts    map[string][]Attempt // subscription id -> attempts, newest first
	seq         int
}

// New starts the fake's five servers; they stop when the test ends.
func New(t testing.TB) *API {
	t.Helper()
	a := &API{t: t, now: func() time.Time { return time.Now().UTC() },
		refusals:    map[string]refusal{},
		accounts:    map[string]*account{Email: {password: Password, plan: "growth", businessName: "Owner Co"}},
		tokens:      map[string]string{},
		invitations: map[string]invitation{},
		usage:       map[string]allowance{"chat": {12, 100, 12}, "lead_finder": {3, 20, 15}, "lead_scoring": {0, -1, 0}},
		health:      Point{Score: 72, Tier: "healthy"},
		history:     map[string][]Point{},
		attempts:    map[string][]Attempt{},
	}
	a.Identity = a.serve("identity", map[string]http.HandlerFunc{
		"POST /api/auth":               a.auth,
		"POST /api/auth/password":      a.authed(a.changePassword),
		"POST /api/accounts":           a.signUp,
		"GET /api/keys":                a.authed(a.listKeys),
		"POST /api/keys":               a.authed(a.createKey),
		"DELETE /api/keys/{id}":        a.authed(a.deleteKey),
		"GET /api/clients":             a.authed(a.listClients),
		"POST /api/clients":            a.authed(a.invite),
		"POST /api/invitations/accept": a.accept,
	})
	a.Analytics = a.serve("analytics", map[string]http.HandlerFunc{
		"GET /api/pql-check":            a.authed(a.pqlCheck),
		"GET /api/health-score":         a.authed(a.healthScore),
		"GET /api/health-score/history": a.authed(a.healthHistory),
		"GET /api/churn-predict":        a.authed(a.churn),
	})
	a.Leads = a.serve("leads", map[string]http.HandlerFunc{
		"GET /api/leads":            a.authed(a.sheet),
		"GET /api/leads/export.csv": a.authed(a.export),
		"POST /api/lead-finder":     a.authed(a.find),
		"GET /api/lead-qualify":     a.authed(a.qualify),
	})
	a.Assistant = a.serve("assistant", map[string]http.HandlerFunc{
		"POST /api/chat": a.authed(a.chat),
	})
	a.Integrations = a.serve("integrations", map[string]http.HandlerFunc{
		"GET /api/ext-webhook/subscriptions":                 a.authed(a.listSubs),
		"POST /api/ext-webhook/subscribe":                    a.authed(a.subscribe),
		"DELETE /api/ext-webhook/subscriptions/{id}":         a.authed(a.unsubscribe),
		"GET /api/ext-webhook/subscriptions/{id}/deliveries": a.authed(a.deliveries),
		"POST /api/ext-webhook/deliveries/{id}/replay":       a.authed(a.replay),
		"POST /api/ext-webhook/secret/rotate":                a.authed(a.rotate),
	})
	return a
}

// Config points the console's API adapter at the fake.
func (a *API) Config() api.Config {
	return api.Config{IdentityURL: a.Identity.URL, LeadsURL: a.Leads.URL, AssistantURL: a.Assistant.URL,
		AnalyticsURL: a.Analytics.URL, IntegrationsURL: a.Integrations.URL, Timeout: 5 * time.Second}
}

// Token signs email in as identity would and returns the access token.
func (a *API) Token(email string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mint(email)
}

func (a *API) mint(email string) string {
	a.seq++
	tok := fmt.Sprintf("tok-%d-%s", a.seq, email)
	a.tokens[tok] = email
	return tok
}

// RevokeTokens makes every service refuse every token issued so far (401), as after a
// password change or a disabled account.
func (a *API) RevokeTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.tokens)
}

// Refuse makes route (a pattern of Calls, e.g. "GET /api/keys") answer with err, written by
// httpx.Fail as the services write it, until Allow.
func (a *API) Refuse(route string, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refusals[route] = refusal{err: err}
}

// RefuseRaw makes route answer status with a body that is not the API's envelope (what a proxy
// in between might say), until Allow.
func (a *API) RefuseRaw(route string, status int, contentType, body string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refusals[route] = refusal{status: status, contentType: contentType, body: body}
}

// Allow ends a Refuse or RefuseRaw.
func (a *API) Allow(route string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.refusals, route)
}

// Calls returns the calls of route, oldest first.
func (a *API) Calls(route string) []Call {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Call
	for _, c := range a.calls {
		if c.Route == route {
			out = append(out, c)
		}
	}
	return out
}

// AddLeads puts leads on the sheet, each newer than the ones before (the last is the newest),
// and returns them with their ids and times.
func (a *API) AddLeads(ls ...Lead) []Lead {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Lead, len(ls))
	for i, l := range ls {
		if l.ID == "" {
			l.ID = ids.New("lead")
		}
		if l.CreatedAt.IsZero() {
			l.CreatedAt = a.now().Add(time.Duration(len(a.leads)) * time.Second)
		}
		a.leads = slices.Insert(a.leads, 0, l)
		out[i] = l
	}
	return out
}

// AddClient adds a client of the owner and returns its id.
func (a *API) AddClient(c Client) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c.ID == "" {
		c.ID = ids.New("acc")
	}
	if c.Status == "" {
		c.Status = "active"
	}
	a.clients = append(a.clients, c)
	return c.ID
}

// SetUsage sets one feature's use this month (limit -1: unlimited) and whether the account is
// near a limit.
func (a *API) SetUsage(feature string, used, limit, pct int, nearLimit bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.usage[feature] = allowance{used, limit, pct}
	a.nearLimit = nearLimit
}

// AddHistory records score changes of the caller (clientID "") or of a client.
func (a *API) AddHistory(clientID string, ps ...Point) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history[clientID] = append(a.history[clientID], ps...)
}

// AddSubscription adds a REST hook and returns its id.
func (a *API) AddSubscription(hookURL, event string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := subscription{id: ids.New("hook"), hookURL: hookURL, event: event, createdAt: a.now()}
	a.subs = append(a.subs, s)
	return s.id
}

// AddAttempt records a delivery attempt of a subscription.
func (a *API) AddAttempt(subID string, at Attempt) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.attempts[subID] = append([]Attempt{at}, a.attempts[subID]...)
}

// Subscriptions lists the hooks as "event hookURL", in order of creation.
func (a *API) Subscriptions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, len(a.subs))
	for i, s := range a.subs {
		out[i] = s.event + " " + s.hookURL
	}
	return out
}

// Keys lists the keys' names.
func (a *API) Keys() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, len(a.keys))
	for i, k := range a.keys {
		out[i] = k.name
	}
	return out
}

// contracts are the services' documents, loaded once.
var (
	contractsMu sync.Mutex
	contracts   = map[string]*openapitest.Contract{}
)

func contract(t testing.TB, service string) *openapitest.Contract {
	contractsMu.Lock()
	defer contractsMu.Unlock()
	if c, ok := contracts[service]; ok {
		return c
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("apitest: cannot locate the services' contracts")
	}
	// services/console/internal/adapters/api/apitest -> services/<service>/api/openapi.yaml
	spec, err := os.ReadFile(filepath.Join(filepath.Dir(file), "../../../../..", service, "api/openapi.yaml")) //nolint:gosec // a service's name, given by New
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	c := openapitest.Load(t, spec)
	contracts[service] = c
	return c
}

// serve starts one service's server: each call is recorded, refused when a test said so, else
// answered by its handler, and the answer is checked against the service's contract.
func (a *API) serve(service string, routes map[string]http.HandlerFunc) *httptest.Server {
	c := contract(a.t, service)
	mux := http.NewServeMux()
	for pattern, h := range routes {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			a.mu.Lock()
			a.calls = append(a.calls, Call{Route: pattern, Path: r.URL.Path, Query: r.URL.RawQuery,
				Authorization: r.Header.Get("Authorization"), ForwardedFor: r.Header.Get("X-Forwarded-For"), Body: string(body)})
			ref, refused := a.refusals[pattern]
			a.mu.Unlock()
			rec := httptest.NewRecorder()
			switch {
			case refused && ref.err != nil:
				httpx.Fail(rec, r, ref.err)
			case refused:
				rec.Header().Set("Content-Type", ref.contentType)
				rec.WriteHeader(ref.status)
				_, _ = rec.WriteString(ref.body)
			default:
				h(rec, r)
			}
			resp := rec.Result()
			if !refused || ref.err != nil {
				c.Check(a.t, r, resp, rec.Body.Bytes())
			}
			for k, v := range resp.Header {
				w.Header()[k] = v
			}
			w.WriteHeader(resp.StatusCode)
			_, _ = w.Write(rec.Body.Bytes())
		})
	}
	mux.Handle("/", httpx.NotFoundHandler())
	s := httptest.NewServer(mux)
	a.t.Cleanup(s.Close)
	return s
}

// authed refuses a request without a live token as the services do; the handler gets the
// token's email.
func (a *API) authed(h func(w http.ResponseWriter, r *http.Request, email string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		email, live := a.tokens[tok]
		a.mu.Unlock()
		if !ok || !live {
			httpx.Fail(w, r, apperr.Unauthenticated(apperr.CodeInvalidToken, "invalid or expired token"))
			return
		}
		h(w, r, email)
	}
}

func ts(t time.Time) string { return isotime.Format(t) }
