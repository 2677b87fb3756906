package service_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/allowance/allowancetest"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/openapitest"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/services/leads/api"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/catalogfile"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsserver/dnstest"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/service"
	"github.com/bizassist/bizassist/services/leads/migrations"
)

// testCatalog is a small catalog file: three Austin plumbers (one without a website, on gmail),
// a Dallas plumber, an Austin dentist, and a hardware store that mentions plumbing.
const testCatalog = `{"id":"p1","name":"Acme Plumbing","owner":"Ann Lee","email":"ann@acmeplumbing.com","phone":"512-472-3000","website":"acmeplumbing.com","vertical":"plumbing","categories":["plumber"],"city":"Austin","state":"TX","zip":"78701","source":"organic","listedAt":"2026-01-02T00:00:00Z"}
{"id":"p2","name":"Drain Kings","owner":"Bo Diaz","email":"drainkings@gmail.com","phone":"512-472-3001","vertical":"plumbing","city":"Austin","state":"TX","zip":"78702","source":"organic"}
{"id":"p3","name":"Pipe Pros","owner":"Cy Ng","email":"cy@pipepros.com","phone":"512-472-3002","website":"https://pipepros.com","vertical":"plumbing","city":"Austin","state":"TX","zip":"78701","source":"referral"}
{"id":"p4","name":"Dallas Pipes","owner":"Di Fox","email":"di@dallaspipes.com","phone":"214-555-0142","website":"dallaspipes.com","vertical":"plumbing","city":"Dallas","state":"TX","zip":"75201","source":"organic"}
{"id":"d1","name":"Smile Dental","owner":"Ed Kim","email":"ed@smiledental.com","phone":"512-472-3003","website":"smiledental.com","vertical":"dentist","city":"Austin","state":"TX","zip":"78701","source":"organic"}
{"id":"h1","name":"Plumbing Supply Hardware","owner":"Flo Park","email":"flo@supplyhw.com","phone":"512-472-3004","vertical":"hardware_store","city":"Austin","state":"TX","zip":"78701","source":"organic"}
`

type harness struct {
	t       *testing.T
	svc     *service.Service
	rdb     redis.UniversalClient
	streams string // this test's event stream prefix
	base    string
	iss     *jwttest.Issuer
	pool    *pgxpool.Pool
	spec    *openapitest.Contract
	ip      string // X-Forwarded-For, so each test has its own rate-limit bucket
	// analytics is the allowance double; dns counts the questions the loopback DNS server answers.
	analytics *allowancetest.Server
	dns       *dnstest.CountingZone
	db        *platformtest.DatabaseProxy
}

// testLimits are analytics' plan limits in these tests: free as seeded; growth as the spec has it
// (paid plans score batches without limit).
var testLimits = allowancetest.Limits{
	"free":   allowancetest.Free,
	"growth": {"chat": 1000, "lead_finder": 300},
}

// newHarness runs the real service in-process on a real socket with the test catalog loaded, a
// loopback DNS server answering for its domains and the analytics double granting allowances.
func newHarness(t *testing.T, ip string) *harness {
	t.Helper()
	ctx := context.Background()
	iss := jwttest.NewIssuer(t)
	environ := platformtest.Env(t, service.Name, iss.JWKSURL())
	pool := pgtest.Open(t, pgtest.Database{URL: environ["DATABASE_URL"]}, service.Name, append([]pgkit.Source{migrations.Source}, platform.Shared...)...)

	rows, err := catalogfile.Open(strings.NewReader(testCatalog), "ndjson")
	require.NoError(t, err)
	rep, err := service.ImportCatalog(ctx, pool, rows, func(app.ImportReport) {})
	require.NoError(t, err)
	require.Equal(t, 6, rep.Inserted, "%+v", rep.Rejected)

	zone := &dnstest.CountingZone{Zone: service.DNSZone(pool)}
	environ["LEADS_DNS_SERVER"] = dnstest.Start(t, zone)
	environ["LEADS_DNS_TIMEOUT"] = "1s"
	environ["LEADS_CACHE_PREFIX"] = environ["RATELIMIT_PREFIX"] + ":"
	fake := allowancetest.New(t, iss.Config(), testLimits)
	environ["ANALYTICS_URL"] = fake.URL
	db := platformtest.ProxyDatabase(t, environ)
	ln, base := platformtest.Listen(t)
	s := platformtest.Start(t, ln, service.New, environ)
	return &harness{t: t, svc: s, rdb: s.Redis, streams: environ["EVENTS_STREAM_PREFIX"], base: base, iss: iss,
		pool: pool, spec: openapitest.Load(t, api.OpenAPI), ip: ip, analytics: fake, dns: zone, db: db}
}

func (h *harness) token(plan string) string {
	return h.tokenFor(ids.New("acc"), plan)
}

// newAccount makes up an account and returns its id and a token of it claiming plan.
func (h *harness) newAccount(plan string) (account, token string) {
	account = ids.New("acc")
	return account, h.tokenFor(account, plan)
}

// tokenFor is a token of account claiming plan (analytics may know better).
func (h *harness) tokenFor(account, plan string) string {
	return h.iss.Token(authjwt.Caller{AccountID: account, Email: "owner@bizassist.test", Plan: plan, TokenID: ids.New("tok")})
}

type response struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

// do sends a request and checks the response against api/openapi.yaml before returning it.
func (h *harness) do(method, path, token string, body any) response {
	h.t.Helper()
	var reader io.Reader
	if body != nil {
		raw, ok := body.(string)
		if !ok {
			b, err := json.Marshal(body)
			require.NoError(h.t, err)
			raw = string(b)
		}
		reader = strings.NewReader(raw)
	}
	req, err := http.NewRequest(method, h.base+path, reader)
	require.NoError(h.t, err)
	req.Header.Set("X-Forwarded-For", h.ip)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	x := h.spec.Do(h.t, req)
	return response{status: x.Status, header: x.Header, body: x.Body, json: x.JSON}
}

func (h *harness) requireError(r response, status int, code, field string) {
	h.t.Helper()
	require.Equal(h.t, status, r.status, string(r.body))
	require.Equal(h.t, false, r.json["ok"])
	require.Equal(h.t, code, r.json["code"], string(r.body))
	require.NotEmpty(h.t, r.json["error"])
	if field != "" {
		require.Equal(h.t, field, r.json["field"], string(r.body))
	}
}

func (h *harness) outbox(typ string) int {
	var n int
	require.NoError(h.t, h.pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox WHERE type = $1", typ).Scan(&n))
	return n
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestContractProperties sends every operation the requests the document makes up, valid and not.
func TestContractProperties(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.90")
	token := h.token("growth")
	h.spec.Probe(t, openapitest.Probe{Base: h.base, Outage: h.db.Outage,
		Credentials: map[string]func(*http.Request){"bearer": func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }}})
}

func TestLeadFinder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.1")
	account, tok := h.newAccount("growth")

	r := h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbers", "location": "Austin, TX"})
	require.Equal(t, 200, r.status, string(r.body))
	require.ElementsMatch(t, []string{"ok", "count", "leads", "resolvedLocation"}, keys(r.json))
	require.Equal(t, "Austin, TX", r.json["resolvedLocation"])
	leads := r.json["leads"].([]any)
	require.EqualValues(t, len(leads), r.json["count"])
	require.Len(t, leads, 4, "three Austin plumbers, then the hardware store by text")
	var names []string
	for _, raw := range leads {
		l := raw.(map[string]any)
		require.ElementsMatch(t, []string{"businessName", "ownerName", "email", "phone", "score", "source"}, keys(l))
		require.True(t, strings.HasPrefix(l["phone"].(string), "+"))
		score := l["score"].(float64)
		require.Equal(t, float64(int(score)), score)
		require.True(t, score >= 0 && score <= 100)
		names = append(names, l["businessName"].(string))
	}
	require.Equal(t, "Drain Kings", names[0], "no website: the biggest gap ranks first")
	require.Equal(t, "Plumbing Supply Hardware", names[3], "text-only matches come after the vertical")

	r = h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbing", "location": "78701", "limit": 1, "keywords": []string{"acme"}})
	require.Equal(t, 200, r.status, string(r.body))
	require.EqualValues(t, 1, r.json["count"])
	require.Equal(t, "Acme Plumbing", r.json["leads"].([]any)[0].(map[string]any)["businessName"])

	// The sheet grew by the four new leads only; the second search found one it already had.
	sheet := h.do("GET", "/api/leads", tok, nil)
	require.Equal(t, 200, sheet.status)
	require.EqualValues(t, 4, sheet.json["count"])
	require.Equal(t, 4, h.outbox("lead.written"))
	require.Equal(t, 2, h.analytics.Used(account, "lead_finder"), "each search reserved one use")
	require.Zero(t, h.outbox("usage.recorded"), "the reservation is the usage record")

	for _, loc := range []string{"Texas", "TX", "Austin"} {
		r = h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "dentist", "location": loc})
		require.Equal(t, 200, r.status, loc)
		require.EqualValues(t, 1, r.json["count"], loc)
	}
}

func TestLeadFinderRejectsBadInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.2")
	tok := h.token("free")
	cases := []struct {
		body        any
		code, field string
	}{
		{map[string]any{"location": "Austin"}, "missing_field", "industry"},
		{map[string]any{"industry": "  "}, "missing_field", "industry"},
		{map[string]any{"industry": "plumber", "limit": 0}, "invalid_field", "limit"},
		{map[string]any{"industry": "plumber", "limit": 51}, "invalid_field", "limit"},
		{`{"industry":"plumber","limit":"ten"}`, "invalid_type", "limit"},
		{`{"industry":"plumber","limit":2.5}`, "invalid_type", "limit"},
		{map[string]any{"industry": "plumber", "location": "Austin, ZZ"}, "invalid_field", "location"},
		{map[string]any{"industry": "plumber", "location": "12"}, "invalid_field", "location"},
		{map[string]any{"industry": "plumber", "radius": 5}, "unknown_field", "radius"},
		{`{"industry":`, "malformed_json", ""},
		// issue 37: null was read as absent (200), a NUL was a 500 (SQLSTATE 22021).
		{`{"industry":"plumber","limit":null}`, "invalid_type", "limit"},
		{`{"industry":null}`, "invalid_type", "industry"},
		{`{"industry":"nul\u0000byte"}`, "invalid_field", "industry"},
		{`{"industry":"plumber","keywords":["ok","b\u0000d"]}`, "invalid_field", "keywords[1]"},
	}
	for _, tc := range cases {
		h.requireError(h.do("POST", "/api/lead-finder", tok, tc.body), 400, tc.code, tc.field)
	}
	h.requireError(h.do("POST", "/api/lead-quality-batch", tok, `{"leads":[{"email":"a@b.co","businessName":"nul\u0000byte"}]}`),
		400, "invalid_field", "leads[0].businessName")
	h.requireError(h.do("POST", "/api/lead-finder", "", map[string]any{"industry": "plumber"}), 401, "unauthenticated", "")
	h.requireError(h.do("POST", "/api/lead-finder", "not-a-token", map[string]any{"industry": "plumber"}), 401, "invalid_token", "")
	require.Zero(t, h.analytics.Reserves(), "refused searches reserve no allowance")
}

// Issue 26 finding 4: places as people write them are resolved through the gazetteer, the reply
// says which place was searched, and an unknown place is a 400 with suggestions.
func TestLeadFinderResolvesPlaces(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.21")
	_, tok := h.newAccount("growth")
	cases := []struct {
		location, resolved string
		count              int
	}{
		{"Austin TX", "Austin, TX", 4},
		{"austin, texas", "Austin, TX", 4},
		{"Austin, TX, USA", "Austin, TX", 4},
		{"Austin, TX 78701", "78701 (Austin, TX)", 3},
		{"78702-1234", "78702 (Austin, TX)", 1},
		{"AUSTIN", "Austin, TX", 4},
		{"Dallas Texas", "Dallas, TX", 1},
		{"New York City", "New York, NY", 0},
		{"NYC", "New York, NY", 0},
		{"Saint Louis, MO", "Saint Louis, MO", 0},
		{"St. Louis", "Saint Louis, MO", 0},
		{"Washington, D.C.", "Washington, DC", 0},
		{"LA", "Los Angeles, CA", 0},
		{"Springfield", "Springfield, MO", 0},
		{"TX", "Texas", 5},
		{"Queens", "Queens, NY", 0},
		{"Harlem, NY", "Harlem, NY", 0},
		{"Pflugerville", "Pflugerville, TX", 0},
	}
	for _, tc := range cases {
		r := h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbers", "location": tc.location})
		require.Equal(t, 200, r.status, "%s: %s", tc.location, r.body)
		require.Equal(t, tc.resolved, r.json["resolvedLocation"], tc.location)
		require.EqualValues(t, tc.count, r.json["count"], tc.location)
	}
	// Issue 39: the largest Springfield, the others offered; a borough searched around its point.
	r := h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbers", "location": "Springfield"})
	require.Equal(t, []any{"Springfield, MA", "Springfield, IL", "Springfield, OR", "Springfield, OH", "Springfield, VA"}, r.json["alternatives"])
	r = h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbers", "location": "Queens, NY"})
	require.EqualValues(t, 6, r.json["nearMiles"], string(r.body))

	reserves := h.analytics.Reserves()
	// Atlantis, FL is a real town (GeoNames); "Atlantiss" is none.
	for _, loc := range []string{"Atlantiss", "Atlantis, GA", "Springfeild, IL", "Austin, ZZ", "00000"} {
		r := h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbers", "location": loc})
		h.requireError(r, 400, "invalid_field", "location")
		sugg, ok := r.json["suggestions"].([]any)
		require.True(t, ok, "%s: %s", loc, r.body)
		require.NotEmpty(t, sugg, loc)
		require.LessOrEqual(t, len(sugg), 3, loc)
	}
	r = h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbers", "location": "Atlantis, GA"})
	require.Contains(t, r.json["suggestions"], "Atlanta, GA")
	require.Equal(t, reserves, h.analytics.Reserves(), "an unknown place reserves nothing")
}

// radiusMiles searches around the resolved point, nearer businesses first.
func TestLeadFinderRadius(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.22")
	_, tok := h.newAccount("growth")
	// Distances from ZIP 78701's point: Pflugerville 12.6 mi, Round Rock 18.7, Georgetown 26.6,
	// San Antonio 74. The San Antonio one has the best gap score (no website), so only distance
	// can put it last.
	rows, err := catalogfile.Open(strings.NewReader(`{"id":"r1","name":"Downtown Drains","owner":"Al Moe","email":"al@downtowndrains.com","phone":"512-472-3100","website":"downtowndrains.com","vertical":"plumbing","city":"Austin","state":"TX","zip":"78701","lat":30.2713,"lng":-97.7426,"source":"organic"}
{"id":"r2","name":"Pflugerville Pipes","owner":"Bea Noe","email":"bea@pflugpipes.com","phone":"512-472-3101","website":"pflugpipes.com","vertical":"plumbing","city":"Pflugerville","state":"TX","zip":"78660","lat":30.4421,"lng":-97.6299,"source":"organic"}
{"id":"r3","name":"Round Rock Rooter","owner":"Cal Poe","email":"cal@rrrooter.com","phone":"512-472-3102","vertical":"plumbing","city":"Round Rock","state":"TX","zip":"78664","lat":30.5145,"lng":-97.668,"source":"organic"}
{"id":"r4","name":"Georgetown Plumbing","owner":"Dee Roe","email":"dee@gtplumbing.com","phone":"512-472-3103","website":"gtplumbing.com","vertical":"plumbing","city":"Georgetown","state":"TX","zip":"78626","lat":30.633,"lng":-97.6707,"source":"organic"}
{"id":"r5","name":"Alamo Plumbing","owner":"Eve Soe","email":"eve@alamoplumbing.net","phone":"210-555-0104","vertical":"plumbing","city":"San Antonio","state":"TX","zip":"78205","lat":29.4237,"lng":-98.4925,"source":"organic"}`), "ndjson")
	require.NoError(t, err)
	_, err = service.ImportCatalog(context.Background(), h.pool, rows, func(app.ImportReport) {})
	require.NoError(t, err)

	names := func(r response) []string {
		var out []string
		for _, l := range r.json["leads"].([]any) {
			out = append(out, l.(map[string]any)["businessName"].(string))
		}
		return out
	}
	r := h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbers", "location": "78701", "radiusMiles": 20})
	require.Equal(t, 200, r.status, string(r.body))
	require.Equal(t, []string{"Downtown Drains", "Pflugerville Pipes", "Round Rock Rooter"}, names(r), "nearest first; the fixtures without coordinates are not placed")
	require.Equal(t, "78701 (Austin, TX)", r.json["resolvedLocation"])
	require.EqualValues(t, 20, r.json["radiusMiles"])

	r = h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbing", "location": "Austin TX", "radiusMiles": 100, "limit": 50})
	require.Equal(t, 200, r.status, string(r.body))
	got := names(r)
	require.Len(t, got, 5, "%v", got)
	require.Equal(t, "Alamo Plumbing", got[4], "the farthest is last whatever its score")
	require.Equal(t, "Georgetown Plumbing", got[3])

	r = h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbing", "location": "78701", "radiusMiles": 12.5})
	require.Equal(t, 200, r.status, string(r.body))
	require.Equal(t, []string{"Downtown Drains"}, names(r)[:1])
	require.NotContains(t, names(r), "Pflugerville Pipes")

	reserves := h.analytics.Reserves()
	for _, body := range []map[string]any{
		{"industry": "plumbers", "location": "Austin, TX", "radiusMiles": 0},
		{"industry": "plumbers", "location": "Austin, TX", "radiusMiles": 0.5},
		{"industry": "plumbers", "location": "Austin, TX", "radiusMiles": 101},
		{"industry": "plumbers", "location": "Texas", "radiusMiles": 10},
		{"industry": "plumbers", "radiusMiles": 10},
	} {
		h.requireError(h.do("POST", "/api/lead-finder", tok, body), 400, "invalid_field", "radiusMiles")
	}
	require.Equal(t, reserves, h.analytics.Reserves(), "a refused radius reserves nothing")
}

func TestLeadQualify(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.3")
	tok := h.token("free")

	r := h.do("GET", "/api/lead-qualify?email=ann@acmeplumbing.com&phone=512-472-3000&businessName=Acme+Plumbing", tok, nil)
	require.Equal(t, 200, r.status, string(r.body))
	require.ElementsMatch(t, []string{"ok", "score", "qualified", "reasoning", "signals"}, keys(r.json))
	require.EqualValues(t, 100, r.json["score"])
	require.Equal(t, true, r.json["qualified"])
	require.ElementsMatch(t, []any{"valid_email_syntax", "verified_email", "business_email", "has_website", "valid_phone", "local_business"}, r.json["signals"])

	r = h.do("GET", "/api/lead-qualify?email=someone@unlisted-domain.com", tok, nil)
	require.Equal(t, 200, r.status)
	require.NotContains(t, r.json["signals"], "verified_email", "NXDOMAIN from the loopback server")
	require.Contains(t, r.json["reasoning"], "has no MX records")

	r = h.do("GET", "/api/lead-qualify?email=not-an-email", tok, nil)
	require.Equal(t, 200, r.status, "a malformed email is scored, not refused")
	require.EqualValues(t, 0, r.json["score"])
	require.Equal(t, false, r.json["qualified"])
	require.Equal(t, []any{}, r.json["signals"])

	h.requireError(h.do("GET", "/api/lead-qualify", tok, nil), 400, "missing_field", "email")
	h.requireError(h.do("GET", "/api/lead-qualify?email=a@b.com", "", nil), 401, "unauthenticated", "")
}

// Issue 26 finding 2: lead-qualify called "0049 30 1234567" invalid while "+49 30 1234567" was valid.
func TestLeadQualifyPhonesFromEveryCountry(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.3")
	tok := h.token("free")
	for _, c := range []struct {
		query string
		valid bool
	}{
		{"phone=%2B49+30+1234567", true},
		{"phone=0049+30+1234567", true},
		{"phone=00+44+20+7946+0958", true},
		{"phone=011+44+20+7946+0958", true},
		{"phone=030+1234567&country=DE", true},
		{"phone=07911+123456&country=gb", true},
		{"phone=%2B1+(512)+555-0134+ext.+12", true},
		{"phone=030+1234567", false},
	} {
		r := h.do("GET", "/api/lead-qualify?email=someone@unlisted-domain.com&"+c.query, tok, nil)
		require.Equal(t, 200, r.status, string(r.body))
		if c.valid {
			require.Contains(t, r.json["signals"], "valid_phone", c.query)
		} else {
			require.Contains(t, r.json["reasoning"], "phone is not a valid number", c.query)
		}
	}
}

func batchOf(n int, email func(i int) string) map[string]any {
	leads := make([]map[string]string, n)
	for i := range leads {
		leads[i] = map[string]string{"email": email(i)}
	}
	return map[string]any{"leads": leads}
}

func TestLeadQualityBatch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.4")
	account, free := h.newAccount("free")

	r := h.do("POST", "/api/lead-quality-batch", free, map[string]any{"leads": []map[string]string{
		{"email": "ann@acmeplumbing.com", "phone": "512-472-3000", "businessName": "Acme Plumbing"},
		{"email": "broken"},
	}})
	require.Equal(t, 200, r.status, string(r.body))
	require.ElementsMatch(t, []string{"ok", "scored", "remaining", "unlimited", "results"}, keys(r.json))
	require.EqualValues(t, 2, r.json["scored"])
	require.EqualValues(t, 23, r.json["remaining"])
	require.Equal(t, false, r.json["unlimited"])
	results := r.json["results"].([]any)
	require.Equal(t, map[string]any{"email": "ann@acmeplumbing.com", "score": float64(100), "qualified": true}, results[0])
	require.Equal(t, map[string]any{"email": "broken", "score": float64(0), "qualified": false}, results[1])
	require.Equal(t, 2, h.analytics.Used(account, "lead_scoring"))
	require.Zero(t, h.outbox("usage.recorded"), "the reservation is the usage record")

	h.requireError(h.do("POST", "/api/lead-quality-batch", free, batchOf(26, func(i int) string { return fmt.Sprintf("a%d@acme.com", i) })), 400, "invalid_field", "leads")
	h.requireError(h.do("POST", "/api/lead-quality-batch", free, map[string]any{"leads": []map[string]string{{"businessName": "x"}}}), 400, "missing_field", "leads[0].email")
	h.requireError(h.do("POST", "/api/lead-quality-batch", free, map[string]any{}), 400, "missing_field", "leads")
	// Each lead is tolerant (the finder's Lead object passes as it is); the request object is not.
	finderLead := map[string]any{"businessName": "Acme Plumbing", "ownerName": "Ann Lee", "email": "ann@acmeplumbing.com",
		"phone": "+15124723000", "score": 85, "source": "organic"}
	r = h.do("POST", "/api/lead-quality-batch", free, map[string]any{"leads": []any{finderLead}})
	require.Equal(t, 200, r.status, string(r.body))
	require.EqualValues(t, 1, r.json["scored"])
	h.requireError(h.do("POST", "/api/lead-quality-batch", free, map[string]any{"leads": []any{finderLead}, "lead": 1}), 400, "unknown_field", "lead")
	h.requireError(h.do("POST", "/api/lead-quality-batch", free, map[string]any{"leads": []any{map[string]any{"email": 5}}}), 400, "invalid_type", "leads[0].email")
	h.requireError(h.do("POST", "/api/lead-quality-batch", free, map[string]any{"leads": []any{"ann@acme.com"}}), 400, "invalid_type", "leads[0]")
	h.requireError(h.do("POST", "/api/lead-quality-batch", "", batchOf(1, func(int) string { return "a@b.com" })), 401, "unauthenticated", "")

	growth := h.do("POST", "/api/lead-quality-batch", h.token("growth"), batchOf(25, func(i int) string { return fmt.Sprintf("g%d@acme.com", i) }))
	require.Equal(t, 200, growth.status)
	require.Nil(t, growth.json["remaining"], "unlimited has no number")
	require.Equal(t, true, growth.json["unlimited"])
	require.Equal(t, 3, h.analytics.Used(account, "lead_scoring"), "refused batches reserve nothing")
}

func TestBatchAllowanceHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.5")
	account, free := h.newAccount("free")

	r := h.do("POST", "/api/lead-quality-batch", free, batchOf(20, func(i int) string { return fmt.Sprintf("a%d@acme.com", i) }))
	require.Equal(t, 200, r.status)
	require.EqualValues(t, 5, r.json["remaining"])

	// A batch larger than what is left is refused whole and spends nothing.
	r = h.do("POST", "/api/lead-quality-batch", free, batchOf(6, func(i int) string { return fmt.Sprintf("b%d@acme.com", i) }))
	h.requireError(r, 402, "batch_allowance_exhausted", "")
	require.EqualValues(t, 5, r.json["remaining"])

	// Ten one-lead batches at once with five scores left: batches are all-or-nothing, so
	// exactly five are scored and five refused.
	var (
		wg                sync.WaitGroup
		mu                sync.Mutex
		scored, refusals  int
		refusalsRemaining []any
	)
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := h.do("POST", "/api/lead-quality-batch", free, batchOf(1, func(int) string { return fmt.Sprintf("c%d@acme.com", i) }))
			mu.Lock()
			defer mu.Unlock()
			switch r.status {
			case 200:
				scored += int(r.json["scored"].(float64))
			case 402:
				refusals++
				require.Equal(t, "batch_allowance_exhausted", r.json["code"])
				require.Equal(t, allowancetest.UpgradeURL, r.json["upgradeUrl"])
				refusalsRemaining = append(refusalsRemaining, r.json["remaining"])
			default:
				t.Errorf("unexpected %d: %s", r.status, r.body)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 5, scored)
	require.Equal(t, 5, refusals)
	for _, rem := range refusalsRemaining {
		require.EqualValues(t, 0, rem)
	}
	require.Equal(t, 25, h.analytics.Used(account, "lead_scoring"))

	r = h.do("POST", "/api/lead-quality-batch", h.token("free"), batchOf(1, func(int) string { return "x@acme.com" }))
	require.Equal(t, 200, r.status, "another free account has its own allowance")
}

func TestLeadsSheetListAndExport(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.6")
	tok := h.token("growth")
	require.Equal(t, 200, h.do("POST", "/api/lead-finder", tok, map[string]any{"industry": "plumbing"}).status)

	page := h.do("GET", "/api/leads?limit=2", tok, nil)
	require.Equal(t, 200, page.status)
	require.EqualValues(t, 2, page.json["count"])
	cursor := page.json["nextCursor"].(string)
	rest := h.do("GET", "/api/leads?limit=100&cursor="+cursor, tok, nil)
	require.EqualValues(t, 3, rest.json["count"], "four plumbers and the hardware store")
	require.Nil(t, rest.json["nextCursor"])

	h.requireError(h.do("GET", "/api/leads?limit=101", tok, nil), 400, "invalid_field", "limit")
	h.requireError(h.do("GET", "/api/leads?cursor=nope", tok, nil), 400, "invalid_field", "cursor")

	r := h.do("GET", "/api/leads/export.csv", tok, nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, "text/csv; charset=utf-8", r.header.Get("Content-Type"))
	records, err := csv.NewReader(bytes.NewReader(r.body)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"id", "name", "email", "phone", "businessName", "source", "createdAt", "phoneExtension", "phoneRaw", "notes", "extras"}, records[0])
	require.Len(t, records, 1+5)

	other := h.do("GET", "/api/leads", h.token("growth"), nil)
	require.EqualValues(t, 0, other.json["count"], "sheets are per account")
}

func TestScoutStats(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.7")
	r := h.do("GET", "/api/scout-stats", "", nil)
	require.Equal(t, 200, r.status, string(r.body))
	require.ElementsMatch(t, []string{"total", "noWebsite", "avgGapScore", "byVertical", "topCities", "topStates", "last7Days", "dateRange", "updatedAt"}, keys(r.json))
	require.EqualValues(t, 6, r.json["total"])
	require.EqualValues(t, 2, r.json["noWebsite"])
	require.Equal(t, "public, max-age=21600", r.header.Get("Cache-Control"))
	etag := r.header.Get("ETag")
	require.NotEmpty(t, etag)
	require.NotContains(t, string(r.body), "acmeplumbing", "aggregates only")

	// A second request is served from Redis, identical, and a matching ETag gets a 304.
	again := h.do("GET", "/api/scout-stats", "", nil)
	require.Equal(t, r.body, again.body)
	req, _ := http.NewRequest("GET", h.base+"/api/scout-stats", nil)
	req.Header.Set("If-None-Match", etag)
	req.Header.Set("X-Forwarded-For", h.ip)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 304, resp.StatusCode)
	require.Equal(t, "30", resp.Header.Get("X-RateLimit-Limit"), "the statistics policy applies")

	// An import changes the catalog: the cached statistics of the old one are not served.
	rows, err := catalogfile.Open(strings.NewReader(`{"id":"n1","name":"New Bakery","vertical":"bakery","city":"Austin","state":"TX"}`), "ndjson")
	require.NoError(t, err)
	_, err = service.ImportCatalog(context.Background(), h.pool, rows, func(app.ImportReport) {})
	require.NoError(t, err)
	fresh := h.do("GET", "/api/scout-stats", "", nil)
	require.EqualValues(t, 7, fresh.json["total"])
	require.NotEqual(t, etag, fresh.header.Get("ETag"))
}

// Issue 26 finding 1: a repeat new_lead (the email in another case, now with a phone, notes and
// a source) was dropped by the sheet's ON CONFLICT DO NOTHING.
func TestInboundRepeatUpdatesTheLead(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.9")
	ctx := context.Background()
	owner := ids.New("acc")
	send := func(d integrationsevents.NewLeadData) {
		d.InboundID = ids.New("inb")
		env, err := events.New(ctx, integrationsevents.InboundNewLead, owner, d)
		require.NoError(t, err)
		raw, err := json.Marshal(env)
		require.NoError(t, err)
		require.NoError(t, h.rdb.XAdd(ctx, &redis.XAddArgs{Stream: h.streams + ":inbound.new_lead", Values: []any{"envelope", string(raw)}}).Err())
	}
	send(integrationsevents.NewLeadData{Name: "Ann", Email: "a@x.com"})
	send(integrationsevents.NewLeadData{Email: "A@X.COM", Phone: "0049 30 1234567", Notes: "call after 5", Source: "crm",
		Extras: map[string]string{"tier": "gold"}})

	type row struct{ Name, Phone, Notes, Source, Extras string }
	var got row
	require.Eventually(t, func() bool {
		err := h.pool.QueryRow(ctx, `SELECT name, phone, notes, source, extras::text FROM sheet_leads WHERE account_id = $1`, owner).
			Scan(&got.Name, &got.Phone, &got.Notes, &got.Source, &got.Extras)
		return err == nil && got.Notes != ""
	}, 20*time.Second, 50*time.Millisecond, "the repeat reaches the stored lead")
	require.Equal(t, row{"Ann", "+49301234567", "call after 5", "crm", `{"tier": "gold"}`}, got)
	var times map[string]time.Time
	require.NoError(t, h.pool.QueryRow(ctx, `SELECT field_updated_at FROM sheet_leads WHERE account_id = $1`, owner).Scan(&times))
	require.ElementsMatch(t, []string{"phone", "notes", "source", "extras.tier"}, slices.Collect(maps.Keys(times)))
}

// CI's cluster-shape e2e lost a repeat's fields: two leads replicas consumed a lead's first and
// second new_lead at once, both found no row, and the second's insert did nothing. Each of these
// concurrent deliveries carries its own extra; every one must reach the one stored lead.
func TestConcurrentInboundLeadsForOneEmailAllMerge(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.10")
	ctx := context.Background()
	owner := ids.New("acc")
	const n = 16
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		go func() {
			<-start
			errs <- h.svc.App.Inbound.Handle(ctx, app.InboundLeadCommand{EventID: fmt.Sprintf("evt_%d", i), AccountID: owner,
				InboundID: ids.New("inb"), Name: "Ann", Email: "ann@concurrent.example", Extras: map[string]string{fmt.Sprintf("k%02d", i): "v"}})
		}()
	}
	close(start)
	for range n {
		require.NoError(t, <-errs)
	}
	var extras map[string]string
	require.NoError(t, h.pool.QueryRow(ctx, `SELECT extras FROM sheet_leads WHERE account_id = $1`, owner).Scan(&extras))
	require.Len(t, extras, n, "every delivery's extra is on the lead: %v", slices.Sorted(maps.Keys(extras)))
	var written int
	require.NoError(t, h.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE account_id = $1 AND type = $2`, owner, leadsevents.LeadWritten).Scan(&written))
	require.Equal(t, 1, written, "lead.written once, for the delivery that added the lead")
}

func TestInboundLeadJoinsTheSheetAndIsPublished(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.8")
	ctx := context.Background()

	// What integrations publishes for a lead received on its webhook.
	owner := ids.New("acc")
	inboundID := ids.New("inb")
	env, err := events.New(ctx, integrationsevents.InboundNewLead, owner, integrationsevents.NewLeadData{InboundID: inboundID,
		Name: "Erin Inbound", Email: "erin@inbound.test", Phone: "512-472-3999", Source: "webhook",
		Notes: "call after 5", Extras: map[string]string{"utm_source": "spring"}})
	require.NoError(t, err)
	raw, err := json.Marshal(env)
	require.NoError(t, err)
	require.NoError(t, h.rdb.XAdd(ctx, &redis.XAddArgs{Stream: h.streams + ":inbound.new_lead", Values: []any{"envelope", string(raw)}}).Err())

	var leadID string
	require.Eventually(t, func() bool {
		err := h.pool.QueryRow(ctx, "SELECT id FROM sheet_leads WHERE account_id = $1 AND email = 'erin@inbound.test'", owner).Scan(&leadID)
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "the inbound lead reaches the owner's sheet")
	require.Equal(t, leadsevents.LeadID(owner, "ERIN@inbound.test"), leadID, "the id integrations answered the sender with")
	var notes, extras string
	require.NoError(t, h.pool.QueryRow(ctx, "SELECT notes, extras::text FROM sheet_leads WHERE id = $1", leadID).Scan(&notes, &extras))
	require.Equal(t, "call after 5", notes)
	require.JSONEq(t, `{"utm_source": "spring"}`, extras)

	var written events.Envelope
	require.Eventually(t, func() bool {
		msgs, err := h.rdb.XRange(ctx, h.streams+":lead.written", "-", "+").Result()
		if err != nil || len(msgs) == 0 {
			return false
		}
		return json.Unmarshal([]byte(msgs[0].Values["envelope"].(string)), &written) == nil
	}, 20*time.Second, 50*time.Millisecond, "the relay publishes lead.written")
	require.Equal(t, owner, written.AccountID)
	var data leadsevents.LeadWrittenData
	require.NoError(t, json.Unmarshal(written.Data, &data))
	require.Equal(t, leadsevents.LeadWrittenData{LeadID: leadID, Name: "Erin Inbound", Email: "erin@inbound.test",
		Phone: "+15124723999", Source: "webhook", BusinessName: "", Timestamp: data.Timestamp, InboundID: inboundID}, data,
		"lead.written names the inbound event the lead came from, which integrations recorded already")
	var wire struct{ Timestamp string }
	require.NoError(t, json.Unmarshal(written.Data, &wire))
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, wire.Timestamp)

	// A redelivery of the same event changes nothing (the consumer records processed ids).
	require.NoError(t, h.rdb.XAdd(ctx, &redis.XAddArgs{Stream: h.streams + ":inbound.new_lead", Values: []any{"envelope", string(raw)}}).Err())
	require.Eventually(t, func() bool {
		pending, err := h.rdb.XInfoGroups(ctx, h.streams+":inbound.new_lead").Result()
		return err == nil && len(pending) == 1 && pending[0].EntriesRead == 2 && pending[0].Pending == 0
	}, 20*time.Second, 50*time.Millisecond)
	var n int
	require.NoError(t, h.pool.QueryRow(ctx, "SELECT count(*) FROM sheet_leads WHERE account_id = $1", owner).Scan(&n))
	require.Equal(t, 1, n)
}

// Every /api route the service registers is in api/openapi.yaml with an operationId, every
// documented operation is registered, and each one's documented security is what it does.
func TestRoutesMatchTheContract(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.99")
	platformtest.WaitReady(t, h.base)
	h.spec.CheckRoutes(t, h.svc.Handler())
}
