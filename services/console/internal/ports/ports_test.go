package ports_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api/apitest"
	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/app/apptest"
	"github.com/bizassist/bizassist/services/console/internal/ports"
	"github.com/bizassist/bizassist/services/console/internal/ports/porttest"
)

// browser drives the console's router, served on a real socket, wired to the real use cases and
// API adapter over a fake API (apitest) and an in-memory session store. It keeps cookies (also
// the __Host- ones over plain HTTP, which a real browser would refuse; tools/e2e/console checks
// the flags) and does not follow redirects.
type browser struct {
	*porttest.Browser
	t        *testing.T
	fake     *apitest.API
	sessions *apptest.Sessions
}

type page = porttest.Page

func start(t *testing.T) *browser {
	t.Helper()
	fake := apitest.New(t)
	now := func() time.Time { return time.Now().UTC() }
	sessions := apptest.NewSessions(now)
	web := &ports.Web{
		App: app.New(api.New(fake.Config()), sessions, time.Hour, now),
		ClientIP: func(r *http.Request) netip.Addr {
			ap, _ := netip.ParseAddrPort(r.RemoteAddr)
			return ap.Addr()
		},
	}
	r := mux.NewRouter()
	web.Routes(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return &browser{Browser: porttest.NewBrowser(t, srv.URL), t: t, fake: fake, sessions: sessions}
}

func (b *browser) get(path string) page {
	b.t.Helper()
	return b.Do(http.MethodGet, path, nil)
}

// post submits a form of the page at from, with that page's CSRF token.
func (b *browser) post(from, path string, form url.Values) page {
	b.t.Helper()
	p := b.get(from)
	require.Equal(b.t, http.StatusOK, p.Status, "%s: %s", from, p.Body)
	form.Set("csrf", p.CSRF(b.t))
	return b.Do(http.MethodPost, path, form)
}

// signIn signs the owner in through the sign-in form.
func (b *browser) signIn() {
	b.t.Helper()
	p := b.post("/sign-in", "/sign-in", url.Values{"email": {apitest.Email}, "password": {apitest.Password}})
	require.Equal(b.t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(b.t, "/", p.Location)
}

// signedIn is a browser whose owner has signed in.
func signedIn(t *testing.T) *browser {
	t.Helper()
	b := start(t)
	b.signIn()
	return b
}

func TestPagesAskForASignInAndComeBack(t *testing.T) {
	t.Parallel()
	b := start(t)
	p := b.get("/leads")
	require.Equal(t, http.StatusSeeOther, p.Status)
	require.Equal(t, "/sign-in?next=%2Fleads", p.Location)

	p = b.post(p.Location, "/sign-in", url.Values{"email": {apitest.Email}, "password": {apitest.Password}, "next": {"/leads"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/leads", p.Location)
	require.Equal(t, http.StatusOK, b.get("/leads").Status)
}

func TestAWrongPasswordIsSaidAndNotKept(t *testing.T) {
	t.Parallel()
	b := start(t)
	p := b.post("/sign-in", "/sign-in", url.Values{"email": {apitest.Email}, "password": {"not it"}})
	require.Equal(t, http.StatusUnauthorized, p.Status)
	require.Contains(t, p.Body, "Invalid email or password")
	require.Contains(t, p.Body, `value="`+apitest.Email+`"`, "the email is kept")
	require.NotContains(t, p.Body, "not it", "the password is not")
	require.Zero(t, b.sessions.Len())
}

func TestEveryPageRendersWithTheNavigationAndHeaders(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	for path, title := range map[string]string{
		"/": "Overview", "/keys": "API keys", "/webhooks": "Webhooks", "/clients": "Clients",
		"/leads": "Leads", "/assistant": "Assistant", "/account": "Account",
	} {
		p := b.get(path)
		require.Equal(t, http.StatusOK, p.Status, "%s: %s", path, p.Body)
		require.Contains(t, p.Body, "<h1>"+title+"</h1>", path)
		require.Contains(t, p.Body, `aria-current="page">`, path)
		for _, n := range ports.Nav {
			require.Contains(t, p.Body, `href="`+n.Path+`"`, path)
		}
		require.Equal(t, ports.CSP, p.Header.Get("Content-Security-Policy"), path)
		require.Equal(t, "no-store", p.Header.Get("Cache-Control"), path)
		require.Equal(t, "DENY", p.Header.Get("X-Frame-Options"), path)
	}
}

func TestTheBrowsersAddressIsForwardedToTheAPI(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	b.get("/keys")
	calls := b.fake.Calls("GET /api/keys")
	require.Len(t, calls, 1)
	require.Equal(t, "127.0.0.1", calls[0].ForwardedFor)
	require.True(t, strings.HasPrefix(calls[0].Authorization, "Bearer tok-"), "the session's token, never shown to the browser")
	require.NotContains(t, b.get("/keys").Body, strings.TrimPrefix(calls[0].Authorization, "Bearer "))
}

func TestTheOverviewShowsEachPanelAndOneFailingPanelSaysSo(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	b.fake.AddLeads(apitest.Lead{Name: "Ann Lee", Email: "ann@acme.example", BusinessName: "Acme"})
	p := b.get("/")
	require.Contains(t, p.Body, "Plan: <strong>growth</strong>")
	require.Contains(t, p.Body, "12 of 100 used (12%)")
	require.Contains(t, p.Body, "Ann Lee")
	require.Contains(t, p.Body, `<a class="button" href="/keys">Connect your tools with an API key</a>`)

	b.fake.SetUsage("chat", 95, 100, 95, true)
	b.fake.Refuse("GET /api/health-score", apperr429())
	p = b.get("/")
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, `href="`+apitest.UpgradeURL+`">You are near a limit of your plan: upgrade</a>`)
	require.Contains(t, p.Body, "95 of 100 used (95%): near the limit")
	require.Contains(t, p.Body, "Too many requests from your address just now. Try again in 3 seconds.", "the health panel says why")
	require.Contains(t, p.Body, "Ann Lee", "the other panels stand")
}

func TestARefusedTokenEndsTheSessionOnAnyPage(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/", "/keys", "/webhooks", "/clients", "/leads", "/leads/export.csv", "/leads?q=ann"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			b := signedIn(t)
			b.fake.RevokeTokens()
			p := b.get(path)
			require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
			want := url.Values{"done": {"expired"}}
			if page, _, _ := strings.Cut(path, "?"); page != "/" {
				want.Set("next", page) // and back to the page after signing in again
			}
			require.Equal(t, "/sign-in?"+want.Encode(), p.Location)
			require.Zero(t, b.sessions.Len(), "the session is over server-side")
			require.Contains(t, b.get("/sign-in?done=expired").Body, "Your session ended.")
		})
	}
}

func TestAKeyIsShownOnceAndRevokingRedirectsWithANotice(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	p := b.post("/keys", "/keys", url.Values{"name": {"  CRM sync  "}})
	require.Equal(t, http.StatusCreated, p.Status, p.Body)
	key := regexp.MustCompile(`id="new-key" readonly value="(bza_[0-9A-Za-z]{36})"`).FindStringSubmatch(p.Body)
	require.NotNil(t, key, p.Body)
	require.Equal(t, []string{"CRM sync"}, b.fake.Keys(), "the name is trimmed")
	require.NotContains(t, b.get("/keys").Body, key[1], "shown only once")

	id := regexp.MustCompile(`action="/keys/([^/]+)/revoke"`).FindStringSubmatch(b.get("/keys").Body)
	require.NotNil(t, id)
	p = b.post("/keys", "/keys/"+id[1]+"/revoke", url.Values{})
	require.Equal(t, http.StatusSeeOther, p.Status)
	require.Equal(t, "/keys?done=key-revoked", p.Location)
	require.Contains(t, b.get(p.Location).Body, "The API key is revoked")
	require.Empty(t, b.fake.Keys())

	p = b.post("/keys", "/keys/key_gone/revoke", url.Values{})
	require.Equal(t, http.StatusNotFound, p.Status, "a refused revoke shows the page again")
	require.Contains(t, p.Body, "No such key")
}

func TestARefusalNamingAFieldIsShownByItAndKeepsWhatWasTyped(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	p := b.post("/webhooks", "/webhooks/subscriptions", url.Values{"hookUrl": {"http://crm.example/hook"}, "event": {"new_lead"}})
	require.Equal(t, http.StatusBadRequest, p.Status)
	require.Contains(t, p.Body, `<p class="field-error" id="hookUrl-error">HookUrl: must be an absolute https URL</p>`)
	require.Contains(t, p.Body, `value="http://crm.example/hook" aria-invalid="true"`)
	require.Empty(t, b.fake.Subscriptions())
}

func TestAPlanRefusalOffersTheUpgrade(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	b.fake.Refuse("POST /api/lead-finder", apperrQuota())
	p := b.post("/leads", "/leads/find", url.Values{"industry": {"plumbing"}, "limit": {"5"}})
	require.Equal(t, http.StatusPaymentRequired, p.Status)
	require.Contains(t, p.Body, `Your plan's allowance for this is used up for this month. Upgrade your plan to continue. <a href="`+apitest.UpgradeURL+`">See the plans</a>`)
	require.Contains(t, p.Body, `value="plumbing"`, "what was typed is kept")
}

func TestAServiceThatDoesNotAnswerChangesNothingAndSaysSo(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	b.fake.RefuseRaw("POST /api/ext-webhook/secret/rotate", http.StatusBadGateway, "text/html", "<html>bad gateway</html>")
	p := b.post("/webhooks", "/webhooks/secret", url.Values{})
	require.Equal(t, http.StatusServiceUnavailable, p.Status)
	require.Contains(t, p.Body, "The service did not answer, so nothing was changed.")
	require.NotContains(t, p.Body, "bad gateway")
}

func TestWebhooksSubscribeShowTheSecretOnceAndListDeliveries(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	p := b.post("/webhooks", "/webhooks/subscriptions", url.Values{"hookUrl": {" https://crm.example/hook "}, "event": {"new_lead"}})
	require.Equal(t, http.StatusCreated, p.Status, p.Body)
	require.Regexp(t, `id="hook-secret" readonly value="whsec_`, p.Body)
	require.Equal(t, []string{"new_lead https://crm.example/hook"}, b.fake.Subscriptions())

	p = b.post("/webhooks", "/webhooks/subscriptions", url.Values{"hookUrl": {"https://crm.example/hook"}, "event": {"new_lead"}})
	require.Equal(t, http.StatusSeeOther, p.Status, "subscribing again shows no secret")
	require.Equal(t, "/webhooks?done=subscribed", p.Location)

	id := regexp.MustCompile(`href="/webhooks/subscriptions/([^"]+)"`).FindStringSubmatch(b.get("/webhooks").Body)
	require.NotNil(t, id)
	code := 500
	b.fake.AddAttempt(id[1], apitest.Attempt{DeliveryID: "msg_1", Event: "new_lead", At: time.Now(), StatusCode: &code, Error: "HTTP 500", LatencyMs: 42})
	p = b.get("/webhooks/subscriptions/" + id[1])
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, "✗ failed: HTTP 500")
	require.Contains(t, p.Body, "42 ms")

	p = b.post("/webhooks/subscriptions/"+id[1], "/webhooks/deliveries/msg_1/replay", url.Values{"subscription": {id[1]}})
	require.Equal(t, http.StatusSeeOther, p.Status)
	require.Equal(t, "/webhooks/subscriptions/"+id[1]+"?done=replayed", p.Location)
	p = b.post("/webhooks/subscriptions/"+id[1], "/webhooks/deliveries/msg_gone/replay", url.Values{"subscription": {id[1]}})
	require.Equal(t, http.StatusNotFound, p.Status)
	require.Contains(t, p.Body, "No such delivery", "said on the subscription's page")
	require.Contains(t, p.Body, "42 ms")

	require.Equal(t, http.StatusNotFound, b.get("/webhooks/subscriptions/hook_someone_elses").Status)

	p = b.post("/webhooks", "/webhooks/subscriptions/"+id[1]+"/delete", url.Values{})
	require.Equal(t, "/webhooks?done=unsubscribed", p.Location)
	require.Empty(t, b.fake.Subscriptions())
}

func TestThePaymentsFormShowsAndSetsTheAccountsChoice(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	p := b.get("/webhooks")
	require.Contains(t, p.Body, "Off.</strong> Nothing is forwarded")
	require.NotContains(t, p.Body, `name="off"`)

	p = b.post("/webhooks", "/webhooks/payments", url.Values{"hookUrl": {"https://books.example/pay"},
		"events": {"invoice.paid", "invoice.payment_failed"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/webhooks?done=payments-saved", p.Location)
	p = b.get("/webhooks")
	require.Contains(t, p.Body, "On:</strong> 2 event types go to https://books.example/pay.")
	require.Contains(t, p.Body, `id="pe-invoice.paid" name="events" value="invoice.paid" checked`)
	require.Contains(t, p.Body, `id="pe-checkout.session.completed" name="events" value="checkout.session.completed">`)
	require.Contains(t, p.Body, `id="payUrl" name="hookUrl" type="url" placeholder="https://example.com/hooks/payments" value="https://books.example/pay"`)
	require.Contains(t, p.Body, "No subscriptions yet.", "payment forwarding is not listed as a REST hook")

	p = b.post("/webhooks", "/webhooks/payments", url.Values{"hookUrl": {"https://books.example/pay"}, "events": {"invoice.paid"}, "off": {"1"}})
	require.Equal(t, http.StatusSeeOther, p.Status)
	require.Empty(t, b.fake.Subscriptions(), "turning off unsubscribes every payment event")
}

func TestTheLeadsSheetSearchesSortsAndPages(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	for i := range 60 {
		biz := "Other"
		if i%2 == 0 {
			biz = "Acme"
		}
		b.fake.AddLeads(apitest.Lead{Name: "Lead " + string(rune('A'+i%26)) + string(rune('a'+i/26)), Email: "l@example.com", BusinessName: biz})
	}
	p := b.get("/leads?q=+acme+&sort=name")
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, "30 of the newest 60 leads match.")
	require.Contains(t, p.Body, `value="acme"`, "the search is shown trimmed")
	require.Contains(t, p.Body, `<option value="name" selected>name</option>`)
	require.Equal(t, 25, strings.Count(p.Body, "<td>Acme</td>"))
	require.Less(t, strings.Index(p.Body, "Lead Aa"), strings.Index(p.Body, "Lead Ab"), "by name")
	require.Contains(t, p.Body, `<a href="/leads?page=2&q=acme&sort=name">Next page</a>`)
	require.NotContains(t, p.Body, "Previous page")

	p = b.get("/leads?page=2&q=acme&sort=name")
	require.Equal(t, 5, strings.Count(p.Body, "<td>Acme</td>"))
	require.Contains(t, p.Body, `<a href="/leads?page=1&q=acme&sort=name">Previous page</a>`)
	require.NotContains(t, p.Body, "Next page")

	p = b.get("/leads?q=nobody")
	require.Contains(t, p.Body, "No leads match “nobody”.")
	p = b.get("/leads?q=acme&page=99999999999999999")
	require.Equal(t, http.StatusOK, p.Status, "a page far past the end is empty, not an error")
}

func TestBrowsingTheSheetLinksTheNextPageByCursor(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	for range 30 {
		b.fake.AddLeads(apitest.Lead{Name: "Someone", Email: "s@example.com"})
	}
	p := b.get("/leads")
	require.Equal(t, 25, strings.Count(p.Body, "<td>Someone</td>"))
	require.NotContains(t, p.Body, "leads match", "browsing scans nothing")
	next := regexp.MustCompile(`<a href="(/leads\?cursor=[^"]+)">Next page</a>`).FindStringSubmatch(p.Body)
	require.NotNil(t, next, p.Body)
	p = b.get(next[1])
	require.Equal(t, 5, strings.Count(p.Body, "<td>Someone</td>"))
	require.NotContains(t, p.Body, "Next page")
}

func TestTheCSVIsDownloadedOrTheRefusalShownOnTheLeadsPage(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	b.fake.AddLeads(apitest.Lead{Name: "Ann", Email: "ann@example.com"})
	p := b.get("/leads/export.csv")
	require.Equal(t, http.StatusOK, p.Status)
	require.Equal(t, "text/csv; charset=utf-8", p.Header.Get("Content-Type"))
	require.Equal(t, `attachment; filename="leads.csv"`, p.Header.Get("Content-Disposition"))
	require.Contains(t, p.Body, "ann@example.com")

	b.fake.Refuse("GET /api/leads/export.csv", apperr429())
	p = b.get("/leads/export.csv")
	require.Equal(t, http.StatusTooManyRequests, p.Status)
	require.Contains(t, p.Body, "<h1>Leads</h1>")
	require.Contains(t, p.Body, "Try again in 3 seconds.")
}

func TestTheFinderAndQualifyShowTheirAnswers(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	p := b.post("/leads", "/leads/find", url.Values{"industry": {"plumbing"}, "location": {"Austin, TX"}, "limit": {"2"}})
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "<caption>Found leads (added to your sheet)</caption>")
	require.Contains(t, p.Body, "<td>Plumbing Austin, TX 1</td>")
	require.Contains(t, p.Body, `value="Austin, TX"`, "the form keeps the search")

	p = b.post("/leads", "/leads/find", url.Values{"industry": {"plumbing"}, "limit": {"many"}})
	require.Equal(t, http.StatusBadRequest, p.Status)
	require.Contains(t, p.Body, `id="limit-error">Enter a whole number from 1 to 50.`)
	require.Len(t, b.fake.Calls("POST /api/lead-finder"), 1, "not sent")

	p = b.post("/leads", "/leads/qualify", url.Values{"email": {" jo@acme.example "}})
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "72 / 100 · ✓ qualified")
	require.Equal(t, "email=jo%40acme.example", b.fake.Calls("GET /api/lead-qualify")[0].Query)
}

func TestClientsAreRankedAndAnInvitationGivesALink(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	calm := b.fake.AddClient(apitest.Client{Email: "calm@example.com", BusinessName: "Calm Co", AtRisk: true, ChurnProbability: 10, AtRiskScore: 88, Tier: "healthy"})
	b.fake.AddClient(apitest.Client{Email: "risky@example.com", BusinessName: "Risky Co", AtRisk: true, ChurnProbability: 90, AtRiskScore: 12, Recommendation: "Call them this week", Tier: "critical"})
	p := b.get("/clients")
	require.Equal(t, http.StatusOK, p.Status)
	require.Less(t, strings.Index(p.Body, "Risky Co"), strings.Index(p.Body, "Calm Co"), "most at risk first")
	require.Contains(t, p.Body, "<td>90%</td>")

	require.Contains(t, p.Body, `<option value="growth">growth</option>`)
	require.NotContains(t, p.Body, `value="full_stack"`, "a growth owner is offered only what it may give")
	p = b.post("/clients", "/clients", url.Values{"email": {"new@example.com"}, "businessName": {"New Co"}, "plan": {"growth"}})
	require.Equal(t, http.StatusCreated, p.Status, p.Body)
	require.Contains(t, p.Body, "invited on the <strong>growth</strong> plan")
	link := regexp.MustCompile(`id="invite-link" readonly value="(https://[^"]+)"`).FindStringSubmatch(p.Body)
	require.NotNil(t, link, p.Body)
	require.True(t, strings.HasPrefix(link[1], "https://"+strings.TrimPrefix(b.Base(), "http://")+"/invitations/accept?token=inv-"), link[1])

	p = b.post("/clients", "/clients", url.Values{"email": {"not an email"}, "businessName": {"X"}})
	require.Equal(t, http.StatusBadRequest, p.Status)
	require.Contains(t, p.Body, `id="c-email-error">Email: must be an email address`)

	b.fake.AddHistory(calm, apitest.Point{At: time.Now().Add(-time.Hour), Score: 88, Tier: "healthy"})
	p = b.get("/clients/" + calm)
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, "<h1>Client: Calm Co</h1>")
	require.Contains(t, p.Body, "steady at 88")
	require.Contains(t, p.Body, `<th scope="row">Login recency</th><td>88</td>`)
	require.Equal(t, http.StatusNotFound, b.get("/clients/acc_someone_elses").Status)

	b.fake.Refuse("GET /api/churn-predict", apperrPlan())
	p = b.get("/clients")
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, "Your plan does not include this.")
}

func TestAChatTurnIsKeptAcrossReloads(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	p := b.post("/assistant", "/assistant", url.Values{"message": {"How are my leads?"}})
	require.Equal(t, http.StatusSeeOther, p.Status)
	require.Equal(t, "/assistant#latest", p.Location)
	p = b.get("/assistant")
	require.Contains(t, p.Body, `<li id="latest">`)
	require.Contains(t, p.Body, "You said: How are my leads?")

	b.fake.Refuse("POST /api/chat", apperrQuota())
	p = b.post("/assistant", "/assistant", url.Values{"message": {"one more"}})
	require.Equal(t, http.StatusPaymentRequired, p.Status)
	require.Contains(t, p.Body, "See the plans")
	require.Contains(t, p.Body, "You said: How are my leads?", "the conversation is still shown")
}

func TestChangingThePasswordSignsOut(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	p := b.post("/account", "/account/password", url.Values{"currentPassword": {apitest.Password},
		"newPassword": {"a new passphrase"}, "confirmPassword": {"a different one"}})
	require.Equal(t, http.StatusBadRequest, p.Status)
	require.Contains(t, p.Body, "The two new passwords differ.")
	require.NotContains(t, p.Body, apitest.Password, "passwords are never echoed")

	p = b.post("/account", "/account/password", url.Values{"currentPassword": {apitest.Password},
		"newPassword": {"a new passphrase"}, "confirmPassword": {"a new passphrase"}})
	require.Equal(t, http.StatusSeeOther, p.Status)
	require.Equal(t, "/sign-in?done=password-changed", p.Location)
	require.Zero(t, b.sessions.Len())
}

func TestSigningOutEndsTheSession(t *testing.T) {
	t.Parallel()
	b := signedIn(t)
	p := b.post("/account", "/sign-out", url.Values{})
	require.Equal(t, "/sign-in?done=signed-out", p.Location)
	require.Zero(t, b.sessions.Len())
	require.Equal(t, http.StatusSeeOther, b.get("/account").Status)
}

func TestAnAPIPathIsNotAPageAndAnUnknownPathIsTheNotFoundPage(t *testing.T) {
	t.Parallel()
	b := start(t)
	p := b.get("/api/leads")
	require.Equal(t, http.StatusNotFound, p.Status)
	require.Contains(t, p.Header.Get("Content-Type"), "application/json")
	require.Contains(t, p.Body, `"code":"not_found"`)

	p = b.get("/no-such-page")
	require.Equal(t, http.StatusNotFound, p.Status)
	require.Contains(t, p.Body, "There is no page at this address.")
	require.Equal(t, ports.CSP, p.Header.Get("Content-Security-Policy"))

	p = b.get("/static/console.css")
	require.Equal(t, http.StatusOK, p.Status)
	require.Equal(t, "public, max-age=3600", p.Header.Get("Cache-Control"))
}

func apperr429() error {
	return apperr.New(apperr.KindRateLimited, apperr.CodeRateLimited, "too many requests").With("retryAfter", 3)
}

func apperrQuota() error {
	return apperr.QuotaExceeded("lead_finder_limit_reached", "the month's allowance is used up").
		With("upgradeUrl", apitest.UpgradeURL).With("remaining", 0).With("limit", 20)
}

func apperrPlan() error {
	return apperr.Forbidden("plan_upgrade_required", "needs growth or full_stack").With("upgradeUrl", apitest.UpgradeURL)
}
