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
	"strconv"
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

func (a *API) login(w http.ResponseWriter, status int, email string) {
	a.mu.Lock()
	tok, plan := a.mint(email), a.accounts[email].plan
	a.mu.Unlock()
	httpx.Respond(w, status, map[string]any{"token": tok, "email": email, "plan": plan})
}

func (a *API) auth(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		Action   string `json:"action"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if in.Action == "verify" {
		a.authed(func(w http.ResponseWriter, r *http.Request, email string) {
			a.mu.Lock()
			plan := a.accounts[email].plan
			a.mu.Unlock()
			httpx.Respond(w, http.StatusOK, map[string]any{"valid": true, "email": email, "plan": plan,
				"expiresAt": ts(a.now().Add(24 * time.Hour))})
		})(w, r)
		return
	}
	a.mu.Lock()
	acc := a.accounts[in.Email]
	a.mu.Unlock()
	if acc == nil || acc.password != in.Password {
		httpx.Fail(w, r, apperr.Unauthenticated("invalid_credentials", "invalid email or password").With("valid", false))
		return
	}
	a.login(w, http.StatusOK, in.Email)
}

func (a *API) signUp(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email        string `json:"email"`
		Password     string `json:"password"`
		BusinessName string `json:"businessName"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if len(in.Password) < 10 {
		httpx.Fail(w, r, apperr.InvalidField("password", "must be at least 10 characters"))
		return
	}
	a.mu.Lock()
	_, taken := a.accounts[in.Email]
	if !taken {
		a.accounts[in.Email] = &account{password: in.Password, plan: "free", businessName: in.BusinessName}
	}
	a.mu.Unlock()
	if taken {
		httpx.Fail(w, r, apperr.Conflict("email_taken", "email already registered"))
		return
	}
	a.login(w, http.StatusCreated, in.Email)
}

func (a *API) changePassword(w http.ResponseWriter, r *http.Request, email string) {
	var in struct {
		CurrentPassword string `json:"currentPassword"`
		NewPassword     string `json:"newPassword"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	acc := a.accounts[email]
	if acc.password != in.CurrentPassword {
		httpx.Fail(w, r, &apperr.Error{Kind: apperr.KindForbidden, Code: "current_password_incorrect",
			Field: "currentPassword", Message: "the current password is incorrect"})
		return
	}
	acc.password = in.NewPassword
	for tok, e := range a.tokens { // earlier tokens are revoked
		if e == email {
			delete(a.tokens, tok)
		}
	}
	httpx.Respond(w, http.StatusOK, struct{}{})
}

func (a *API) listKeys(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []map[string]any{}
	for _, k := range a.keys {
		out = append(out, map[string]any{"id": k.id, "name": k.name, "prefix": k.prefix, "createdAt": ts(k.createdAt), "lastUsedAt": nil})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"keys": out})
}

func (a *API) createKey(w http.ResponseWriter, r *http.Request, _ string) {
	var in struct {
		Name string `json:"name"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if in.Name == "" {
		httpx.Fail(w, r, apperr.MissingField("name"))
		return
	}
	a.mu.Lock()
	a.seq++
	secret := fmt.Sprintf("bza_%036d", a.seq)
	k := key{id: ids.New("key"), name: in.Name, prefix: secret[:8], createdAt: a.now()}
	a.keys = append(a.keys, k)
	a.mu.Unlock()
	httpx.Respond(w, http.StatusCreated, map[string]any{"id": k.id, "name": k.name, "key": secret, "createdAt": ts(k.createdAt)})
}

func (a *API) deleteKey(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	i := slices.IndexFunc(a.keys, func(k key) bool { return k.id == r.PathValue("id") })
	if i >= 0 {
		a.keys = slices.Delete(a.keys, i, i+1)
	}
	a.mu.Unlock()
	if i < 0 {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such key"))
		return
	}
	httpx.Respond(w, http.StatusOK, struct{}{})
}

func (a *API) listClients(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []map[string]any{}
	for _, c := range a.clients {
		var tier any
		if c.Tier != "" {
			tier = c.Tier
		}
		out = append(out, map[string]any{"id": c.ID, "email": c.Email, "businessName": c.BusinessName, "status": c.Status,
			"lastLogin": nil, "healthScore": c.HealthScore, "tier": tier})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"clients": out})
}

func (a *API) invite(w http.ResponseWriter, r *http.Request, email string) {
	var in struct {
		Email        string `json:"email"`
		BusinessName string `json:"businessName"`
		OwnerName    string `json:"ownerName"`
		Phone        string `json:"phone"`
		Plan         string `json:"plan"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	a.mu.Lock()
	plan := a.accounts[email].plan
	a.mu.Unlock()
	if plan == "free" {
		httpx.Fail(w, r, apperr.Forbidden("plan_upgrade_required", "inviting clients needs the growth or full_stack plan").With("upgradeUrl", UpgradeURL))
		return
	}
	if !strings.Contains(in.Email, "@") {
		httpx.Fail(w, r, apperr.InvalidField("email", "must be an email address"))
		return
	}
	id := a.AddClient(Client{Email: in.Email, BusinessName: in.BusinessName, Status: "invited"})
	a.mu.Lock()
	a.seq++
	tok := fmt.Sprintf("inv-%d", a.seq)
	a.invitations[tok] = invitation{email: in.Email, plan: cmpOr(in.Plan, "free")}
	a.mu.Unlock()
	httpx.Respond(w, http.StatusCreated, map[string]any{"id": id, "inviteToken": tok, "inviteExpiresAt": ts(a.now().Add(7 * 24 * time.Hour))})
}

func cmpOr(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

func (a *API) accept(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Token    string `json:"token"`
		Password string `json:"password"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	a.mu.Lock()
	inv, ok := a.invitations[in.Token]
	if ok {
		delete(a.invitations, in.Token)
		a.accounts[inv.email] = &account{password: in.Password, plan: inv.plan}
	}
	a.mu.Unlock()
	if !ok {
		httpx.Fail(w, r, apperr.Invalid("invitation_invalid", "the invitation is unknown, used or expired"))
		return
	}
	a.login(w, http.StatusOK, inv.email)
}

func (a *API) pqlCheck(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	features, top := map[string]any{}, 0
	for name, u := range a.usage {
		var limit any = u.limit
		if u.limit < 0 {
			limit = nil
		} else {
			top = max(top, u.pct)
		}
		features[name] = map[string]any{"used": u.used, "limit": limit, "pct": u.pct, "unlimited": u.limit < 0}
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"nearLimit": a.nearLimit, "usagePercent": top, "features": features, "upgradeUrl": UpgradeURL})
}

func signals(score int) map[string]int {
	s := map[string]int{}
	for _, n := range []string{"loginRecency", "loginFrequency", "featureAdoption", "chatEngagement", "leadActivity",
		"usageTrend", "planUtilisation", "integrationUse", "paymentHealth", "tenure"} {
		s[n] = score
	}
	return s
}

func (a *API) healthScore(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	h := a.health
	a.mu.Unlock()
	httpx.Respond(w, http.StatusOK, map[string]any{"score": h.Score, "tier": h.Tier, "signals": signals(h.Score), "updatedAt": ts(a.now())})
}

func (a *API) healthHistory(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	days, err := strconv.Atoi(q.Get("days"))
	if err != nil || days < 1 || days > 90 {
		httpx.Fail(w, r, apperr.InvalidField("days", "must be a whole number from 1 to 90"))
		return
	}
	id := q.Get("clientId")
	a.mu.Lock()
	known := id == "" || slices.ContainsFunc(a.clients, func(c Client) bool { return c.ID == id })
	ps := a.history[id]
	a.mu.Unlock()
	if !known {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such client"))
		return
	}
	out := []map[string]any{}
	for _, p := range ps {
		out = append(out, map[string]any{"at": ts(p.At), "score": p.Score, "tier": p.Tier, "signals": signals(p.Score)})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"accountId": cmpOr(id, "acc_owner"), "days": days, "points": out})
}

func (a *API) churn(w http.ResponseWriter, r *http.Request, email string) {
	q := r.URL.Query()
	threshold, _ := strconv.Atoi(cmpOr(q.Get("threshold"), "60"))
	limit, _ := strconv.Atoi(cmpOr(q.Get("limit"), "10"))
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.accounts[email].plan == "free" {
		httpx.Fail(w, r, apperr.Forbidden("plan_upgrade_required", "churn prediction needs the growth or full_stack plan").With("upgradeUrl", UpgradeURL))
		return
	}
	var at []Client
	for _, c := range a.clients {
		if c.AtRisk && c.ChurnProbability >= threshold {
			at = append(at, c)
		}
	}
	slices.SortStableFunc(at, func(x, y Client) int { return y.ChurnProbability - x.ChurnProbability })
	out := []map[string]any{}
	for _, c := range at[:min(limit, len(at))] {
		out = append(out, map[string]any{"email": cmpOr(c.AtRiskEmail, c.Email), "businessName": c.BusinessName,
			"churnProbability": c.ChurnProbability, "healthScore": c.AtRiskScore, "lastLogin": nil, "recommendation": c.Recommendation})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"atRisk": len(at), "clients": out})
}

func leadJSON(l Lead) map[string]any {
	return map[string]any{"id": l.ID, "name": l.Name, "email": l.Email, "phone": l.Phone, "phoneExtension": "", "phoneRaw": "",
		"businessName": l.BusinessName, "source": l.Source, "notes": "", "extras": map[string]string{}, "createdAt": ts(l.CreatedAt)}
}

func (a *API) sheet(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	limit, err := strconv.Atoi(cmpOr(q.Get("limit"), "50"))
	if err != nil || limit < 1 || limit > 100 {
		httpx.Fail(w, r, apperr.InvalidField("limit", "must be a whole number from 1 to 100"))
		return
	}
	from := 0
	if c := q.Get("cursor"); c != "" {
		if from, err = strconv.Atoi(strings.TrimPrefix(c, "c")); err != nil || !strings.HasPrefix(c, "c") {
			httpx.Fail(w, r, apperr.InvalidField("cursor", "is not a cursor of this sheet"))
			return
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	from = min(from, len(a.leads))
	to := min(from+limit, len(a.leads))
	out := []map[string]any{}
	for _, l := range a.leads[from:to] {
		out = append(out, leadJSON(l))
	}
	var next any
	if to < len(a.leads) {
		next = "c" + strconv.Itoa(to)
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"count": len(out), "leads": out, "nextCursor": next})
}

func (a *API) export(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var b strings.Builder
	b.WriteString("id,name,email,phone,businessName,source,createdAt,phoneExtension,phoneRaw,notes,extras\n")
	for _, l := range a.leads {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s,%s,,,,{}\n", l.ID, l.Name, l.Email, l.Phone, l.BusinessName, l.Source, ts(l.CreatedAt))
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, b.String())
}

func (a *API) find(w http.ResponseWriter, r *http.Request, _ string) {
	var in struct {
		Industry string `json:"industry"`
		Location string `json:"location"`
		Limit    int    `json:"limit"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if in.Limit < 1 || in.Limit > 50 {
		httpx.Fail(w, r, apperr.InvalidField("limit", "must be from 1 to 50"))
		return
	}
	out := []map[string]any{}
	for i := range min(in.Limit, 3) {
		biz := fmt.Sprintf("%s %s %d", strings.ToUpper(in.Industry[:1])+in.Industry[1:], cmpOr(in.Location, "Anywhere"), i+1)
		email := fmt.Sprintf("owner%d@%s.example", i+1, strings.ReplaceAll(strings.ToLower(in.Industry), " ", ""))
		a.AddLeads(Lead{Name: fmt.Sprintf("Owner %d", i+1), Email: email, BusinessName: biz, Source: "lead_finder"})
		out = append(out, map[string]any{"businessName": biz, "ownerName": fmt.Sprintf("Owner %d", i+1), "email": email,
			"phone": fmt.Sprintf("+1512555010%d", i), "score": 80 - i, "source": "lead_finder"})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"count": len(out), "leads": out})
}

func (a *API) qualify(w http.ResponseWriter, r *http.Request, _ string) {
	email := r.URL.Query().Get("email")
	if !strings.Contains(email, "@") {
		httpx.Fail(w, r, apperr.InvalidField("email", "must be an email address"))
		return
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"score": 72, "qualified": true,
		"reasoning": "A business address with a working phone.", "signals": []string{"valid_email_syntax", "business_email"}})
}

func (a *API) chat(w http.ResponseWriter, r *http.Request, _ string) {
	var in struct {
		Message   string `json:"message"`
		SessionID string `json:"sessionId"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if strings.TrimSpace(in.Message) == "" {
		httpx.Fail(w, r, apperr.MissingField("message"))
		return
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"reply": "You said: " + in.Message,
		"sessionId": cmpOr(in.SessionID, ids.New("ses")), "tokens": 5})
}

func (a *API) subJSON(s subscription) map[string]any {
	return map[string]any{"id": s.id, "hookUrl": s.hookURL, "event": s.event, "status": "active",
		"createdAt": ts(s.createdAt), "failingSince": nil}
}

func (a *API) listSubs(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []map[string]any{}
	for _, s := range a.subs {
		out = append(out, a.subJSON(s))
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"subscriptions": out})
}

// outbound are the event types a hook may subscribe to.
var outbound = []string{"new_lead", "health_score.critical", "checkout.session.completed", "customer.subscription.created",
	"customer.subscription.updated", "customer.subscription.deleted", "invoice.paid", "invoice.payment_failed", "invoice.payment_succeeded"}

func (a *API) subscribe(w http.ResponseWriter, r *http.Request, _ string) {
	var in struct {
		HookURL string `json:"hookUrl"`
		Event   string `json:"event"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if !strings.HasPrefix(in.HookURL, "https://") {
		httpx.Fail(w, r, apperr.InvalidField("hookUrl", "must be an absolute https URL"))
		return
	}
	if !slices.Contains(outbound, in.Event) {
		httpx.Fail(w, r, apperr.InvalidField("event", "is not an event type"))
		return
	}
	a.mu.Lock()
	i := slices.IndexFunc(a.subs, func(s subscription) bool { return s.event == in.Event && s.hookURL == in.HookURL })
	if i >= 0 { // idempotent: the same subscription, no secret
		body := a.subJSON(a.subs[i])
		a.mu.Unlock()
		httpx.Respond(w, http.StatusOK, body)
		return
	}
	a.mu.Unlock()
	id := a.AddSubscription(in.HookURL, in.Event)
	a.mu.Lock()
	body := a.subJSON(a.subs[len(a.subs)-1])
	a.mu.Unlock()
	body["secret"] = "whsec_" + strings.TrimPrefix(id, "hook_")
	httpx.Respond(w, http.StatusCreated, body)
}

func (a *API) unsubscribe(w http.ResponseWriter, r *http.Request, _ string) {
	id := r.PathValue("id")
	a.mu.Lock()
	i := slices.IndexFunc(a.subs, func(s subscription) bool { return s.id == id })
	if i >= 0 {
		a.subs = slices.Delete(a.subs, i, i+1)
	}
	a.mu.Unlock()
	if i < 0 {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such subscription"))
		return
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
}

func (a *API) deliveries(w http.ResponseWriter, r *http.Request, _ string) {
	id := r.PathValue("id")
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.ContainsFunc(a.subs, func(s subscription) bool { return s.id == id }) {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such subscription"))
		return
	}
	out := []map[string]any{}
	for _, at := range a.attempts[id] {
		var e any
		if at.Error != "" {
			e = at.Error
		}
		out = append(out, map[string]any{"deliveryId": at.DeliveryID, "event": at.Event, "attemptedAt": ts(at.At),
			"statusCode": at.StatusCode, "latencyMs": at.LatencyMs, "error": e})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"attempts": out})
}

func (a *API) replay(w http.ResponseWriter, r *http.Request, _ string) {
	id := r.PathValue("id")
	a.mu.Lock()
	known := false
	for _, ats := range a.attempts {
		known = known || slices.ContainsFunc(ats, func(at Attempt) bool { return at.DeliveryID == id })
	}
	a.mu.Unlock()
	if !known {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such delivery"))
		return
	}
	httpx.Respond(w, http.StatusAccepted, map[string]any{"deliveryId": id, "queued": true})
}

func (a *API) rotate(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	a.seq++
	secret := fmt.Sprintf("ext_secret_%d", a.seq)
	a.mu.Unlock()
	httpx.Respond(w, http.StatusOK, map[string]any{"secret": secret, "rotatedAt": ts(a.now())})
}
