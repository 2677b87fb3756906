// Package console_test drives the client dashboard in Debian's Chromium, headless, through the
// local stack's ingress: the flows people use, an accessibility check of every page (axe-core)
// and the security headers. Run with BIZASSIST_E2E=1 after make up (make test-e2e).
package console_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/tools/internal/devenv"
)

var nav = []string{"Overview", "API keys", "Webhooks", "Clients", "Leads", "Assistant", "Account"}

var pages = map[string]string{"Overview": "/", "API keys": "/keys", "Webhooks": "/webhooks", "Clients": "/clients",
	"Leads": "/leads", "Assistant": "/assistant", "Account": "/account"}

// unique makes emails no earlier run used.
func unique(prefix string) string {
	return fmt.Sprintf("%s-%d@console-e2e.test", prefix, time.Now().UnixNano())
}

const password = "console-e2e-password"

// signIn signs in with the keyboard alone: Tab to each field, type, Enter.
func (b *browser) signIn(email, pw string) {
	b.t.Helper()
	b.open("/sign-in")
	for range 10 {
		var id string
		b.run(chromedp.KeyEvent(kb.Tab), chromedp.Evaluate(`document.activeElement.id`, &id))
		if id == "email" {
			break
		}
	}
	b.run(chromedp.KeyEvent(email), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(pw),
		chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible("nav[aria-label=Main]", chromedp.ByQuery))
}

// signUp creates a fresh free account and leaves the browser signed in to it.
func (b *browser) signUp(email string) {
	b.t.Helper()
	b.open("/sign-up")
	b.submit(`form[action="/sign-up"]`, map[string]string{"#businessName": "Console E2E " + email, "#email": email,
		"#password": password}, "button[type=submit]")
	require.Equal(b.t, "Overview", b.heading(), b.text("main"))
}

// axe runs axe-core on the current page and fails on any serious or critical violation.
func (b *browser) axe(name string) {
	b.t.Helper()
	var out string
	b.run(chromedp.Evaluate(axeSource, nil),
		chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(
			r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
			  .map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(" "))}))))`,
			&out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	var violations []map[string]any
	require.NoError(b.t, json.Unmarshal([]byte(out), &violations))
	require.Empty(b.t, violations, "axe: serious or critical violations on %s", name)
}

// fits checks the page needs no horizontal scrolling (tables scroll inside their own box).
func (b *browser) fits(name string, width int64) {
	b.t.Helper()
	var w int64
	b.run(chromedp.Evaluate(`document.documentElement.scrollWidth`, &w))
	require.LessOrEqual(b.t, w, width, "%s is wider than %d px", name, width)
}

func TestSignInEveryPageAccessibleAtPhoneWidthAndSignOut(t *testing.T) {
	b := newBrowser(t)
	for _, p := range []string{"/sign-in", "/sign-up", "/invitations/accept?token=x"} {
		b.open(p)
		b.axe(p)
	}
	b.signIn(env["DEMO_GROWTH_EMAIL"], env["DEMO_PASSWORD"])
	require.Equal(t, "Overview", b.heading())
	var links []string
	b.run(chromedp.Evaluate(`[...document.querySelectorAll("nav[aria-label=Main] a")].map(a => a.textContent.trim())`, &links))
	require.Equal(t, nav, links, "the navigation's link names are part of the interface")
	main := b.text("main")
	require.Contains(t, main, "Plan: growth")
	require.Contains(t, main, "Account health")
	require.Contains(t, main, "The 10 signals")
	var svg int
	b.run(chromedp.Evaluate(`document.querySelectorAll("figure.trend svg[role=img]").length`, &svg))
	require.Equal(t, 1, svg, "the 30-day trend is a server-rendered SVG")
	var cookie string
	b.run(chromedp.Evaluate(`document.cookie`, &cookie))
	require.Empty(t, cookie, "no cookie is readable by page script (HttpOnly)")
	b.shot("signed-in-overview")

	b.run(emulation.SetDeviceMetricsOverride(375, 800, 2, true))
	for _, name := range nav {
		b.open(pages[name])
		require.Equal(t, name, b.heading())
		b.axe(name)
		b.fits(name, 375)
	}
	b.shot("phone-width-account")
	b.run(emulation.ClearDeviceMetricsOverride())

	// Sign out ends the session server-side: the old cookie opens nothing.
	old := b.cookie("__Host-bza_session")
	require.NotNil(t, old)
	require.True(t, old.HTTPOnly && old.Secure)
	require.Equal(t, "Lax", old.SameSite.String())
	b.open("/account")
	b.run(chromedp.Click(`form[action="/sign-out"] button`, chromedp.ByQuery), chromedp.WaitVisible(`form[action="/sign-in"]`, chromedp.ByQuery))
	require.Contains(t, b.text("main"), "You are signed out.")
	req, _ := http.NewRequest(http.MethodGet, env["BASE_URL"]+"/", nil)
	req.AddCookie(&http.Cookie{Name: old.Name, Value: old.Value})
	resp, err := apiClient(t).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/sign-in", resp.Header.Get("Location"))
}

func TestSecurityHeadersCookieFlagsAndCSRF(t *testing.T) {
	if browserOpts == nil {
		t.Skip(skipReason)
	}
	c := apiClient(t)
	resp, err := c.Get(env["BASE_URL"] + "/sign-in")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	csp := resp.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "script-src 'self'")
	require.Contains(t, csp, "style-src 'self'")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.NotContains(t, csp, "unsafe-inline")
	require.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
	require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
	require.NotEmpty(t, resp.Header.Get("Strict-Transport-Security"))
	require.NotContains(t, string(body), "<script>", "no inline script")
	require.NotContains(t, string(body), "style=", "no inline style")
	var pre *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "__Host-bza_pre" {
			pre = ck
		}
	}
	require.NotNil(t, pre)
	require.True(t, pre.HttpOnly && pre.Secure)
	require.Equal(t, http.SameSiteStrictMode, pre.SameSite)

	// A forged sign-in (another site's form: the cookie rides along, the token cannot).
	form := url.Values{"email": {env["DEMO_GROWTH_EMAIL"]}, "password": {env["DEMO_PASSWORD"]}, "csrf": {"forged"}}
	req, _ := http.NewRequest(http.MethodPost, env["BASE_URL"]+"/sign-in", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(pre)
	resp, err = c.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Empty(t, resp.Cookies(), "no session for a forged form")

	// Signed in (in a browser), a forged post to a state-changing form is refused too.
	b := newBrowser(t)
	b.signIn(env["DEMO_GROWTH_EMAIL"], env["DEMO_PASSWORD"])
	sess := b.cookie("__Host-bza_session")
	require.NotNil(t, sess)
	for _, csrf := range []string{"", "forged"} {
		req, _ = http.NewRequest(http.MethodPost, env["BASE_URL"]+"/keys", strings.NewReader(url.Values{"name": {"forged"}, "csrf": {csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: sess.Name, Value: sess.Value})
		resp, err = c.Do(req)
		require.NoError(t, err)
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusForbidden, resp.StatusCode, "csrf %q", csrf)
		require.Contains(t, string(body), "nothing was changed")
	}
	resp, err = c.Get(env["BASE_URL"] + "/api/no-such-route")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "application/json", strings.Split(resp.Header.Get("Content-Type"), ";")[0], "/api/ stays the services'")
}

func TestSignUp(t *testing.T) {
	b := newBrowser(t)
	email := unique("signup")
	b.signUp(email)
	require.Contains(t, b.text("main"), "Plan: free")
	require.Contains(t, b.text(".who"), email)
	b.shot("signed-up")
	// The same email again is refused in words next to the form, which keeps what was typed.
	other := newBrowser(t)
	other.open("/sign-up")
	other.submit(`form[action="/sign-up"]`, map[string]string{"#businessName": "Again", "#email": email, "#password": password}, "button[type=submit]")
	require.Contains(t, other.text("main"), "already registered")
	require.Equal(t, "Again", other.value("#businessName"))
}

func TestCreateAnAPIKeyAndUseIt(t *testing.T) {
	b := newBrowser(t)
	b.signUp(unique("keys"))
	b.open("/keys")
	b.submit(`form[action="/keys"]`, map[string]string{"#name": "CRM sync"}, "button[type=submit]")
	key := b.value("#new-key")
	require.True(t, strings.HasPrefix(key, "bza_"), key)
	b.shot("api-key-created")

	req, _ := http.NewRequest(http.MethodGet, env["BASE_URL"]+"/api/pql-check", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := apiClient(t).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the key works against the API")

	b.open("/keys")
	require.Contains(t, b.text("main"), "CRM sync")
	require.NotContains(t, b.text("main"), key, "the key is shown once")
	b.run(chromedp.Click(`form[action$="/revoke"] button`, chromedp.ByQuery), chromedp.WaitVisible("p.notice", chromedp.ByQuery))
	require.Contains(t, b.text("main"), "revoked")
}

// receiver records the webhook deliveries it gets.
type receiver struct {
	mu  sync.Mutex
	ids []string
}

func (r *receiver) count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.ids) }

func newReceiver(t *testing.T) (*receiver, string) {
	rc := &receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rc.mu.Lock()
		rc.ids = append(rc.ids, req.Header.Get("webhook-id"))
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return rc, srv.URL + "/hook"
}

func TestWebhookDeliveryReplayAndPaymentOptIn(t *testing.T) {
	b := newBrowser(t)
	b.signUp(unique("hooks"))
	rc, hookURL := newReceiver(t)

	b.open("/webhooks")
	b.run(chromedp.Click(`form[action="/webhooks/secret"] button`, chromedp.ByQuery), chromedp.WaitVisible("#new-secret", chromedp.ByQuery))
	secret := b.value("#new-secret")
	require.NotEmpty(t, secret)
	b.submit(`form[action="/webhooks/subscriptions"]`, map[string]string{"#hookUrl": hookURL}, "button[type=submit]")
	require.True(t, strings.HasPrefix(b.value("#hook-secret"), "whsec_"))

	lead := fmt.Sprintf(`{"event":"new_lead","name":"Pat Console","email":"%s","phone":"+15125550142"}`, unique("lead"))
	req, _ := http.NewRequest(http.MethodPost, env["BASE_URL"]+"/api/ext-webhook", strings.NewReader(lead))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Ext-Secret", secret)
	resp, err := apiClient(t).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	b.open("/webhooks")
	var sub string
	b.run(chromedp.AttributeValue(`a[href^="/webhooks/subscriptions/"]`, "href", &sub, nil, chromedp.ByQuery))
	b.eventually(sub, 30*time.Second, func() bool { return strings.Contains(b.text("main"), "delivered") })
	require.Contains(t, b.text("main"), "204")
	b.shot("webhook-delivered")
	b.run(chromedp.Click(`form[action$="/replay"] button`, chromedp.ByQuery), chromedp.WaitVisible("p.notice", chromedp.ByQuery))
	require.Contains(t, b.text("main"), "queued again")
	require.Eventually(t, func() bool { return rc.count() >= 2 }, 30*time.Second, 200*time.Millisecond)
	rc.mu.Lock()
	require.Equal(t, rc.ids[0], rc.ids[1], "a replay keeps the webhook-id")
	rc.mu.Unlock()
	b.shot("webhook-replayed")

	b.open("/webhooks")
	require.Contains(t, b.text("#pay-h + p"), "Off.")
	b.run(chromedp.SendKeys("#payUrl", hookURL+"/payments", chromedp.ByQuery),
		chromedp.Click(`input[value="invoice.payment_failed"]`, chromedp.ByQuery),
		chromedp.Click(`input[value="customer.subscription.deleted"]`, chromedp.ByQuery),
		chromedp.Click(`form[action="/webhooks/payments"] button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible("p.notice", chromedp.ByQuery))
	require.Contains(t, b.text("main"), "Payment event forwarding is saved.")
	require.Contains(t, b.text("#pay-h + p"), "On: 2 event types")
	b.shot("payments-opted-in")
}

func TestInviteAClientWhoAcceptsInAnotherBrowser(t *testing.T) {
	// An owner of its own: a shared demo owner would spend its client allowance (growth 20)
	// one run at a time, and every run after the twentieth on a machine would fail.
	ownerEmail := unique("owner")
	newBrowser(t).signUp(ownerEmail)
	out, err := devenv.ServiceCommand(t.Context(), root, "identity", "accounts", "set-plan", ownerEmail, "growth")
	require.NoError(t, err)
	require.Equal(t, ownerEmail+" is now on growth\n", out)
	owner := newBrowser(t)
	owner.signIn(ownerEmail, password)
	email := unique("client")
	business := "Console Client " + email[len("client-"):len("client-")+8]
	owner.open("/clients")
	owner.submit(`form[action="/clients"]`, map[string]string{"#c-business": business, "#c-email": email}, "button[type=submit]")
	link := owner.value("#invite-link")
	require.Contains(t, link, "/invitations/accept?token=")

	client := newBrowser(t)
	u, err := url.Parse(link)
	require.NoError(t, err)
	client.open(u.RequestURI())
	client.submit(`form[action="/invitations/accept"]`, map[string]string{"#password": password}, "button[type=submit]")
	require.Equal(t, "Overview", client.heading(), client.text("main"))
	require.Contains(t, client.text(".who"), email)
	client.shot("client-accepted")

	owner.eventually("/clients", 20*time.Second, func() bool { return strings.Contains(owner.text("main"), business) })
	row := owner.text(`tbody tr:has(a[href^="/clients/"])`)
	require.NotEmpty(t, row)
	owner.shot("owner-clients")
}

func TestSearchTheLeadsSheetAndDownloadCSV(t *testing.T) {
	b := newBrowser(t)
	b.signUp(unique("leads"))
	b.open("/leads")
	b.submit(`form[action="/leads/find"]`, map[string]string{"#industry": "plumbing", "#location": "Austin, TX", "#limit": "5"}, "button[type=submit]")
	var found []string
	b.run(chromedp.Evaluate(`[...document.querySelectorAll("#finder tbody tr td:first-child")].map(td => td.textContent)`, &found))
	require.NotEmpty(t, found, b.text("main"))
	needle := strings.Fields(found[0])[0]

	b.open("/leads?" + url.Values{"q": {needle}, "sort": {"name"}}.Encode())
	require.Contains(t, b.text("#sheet-h ~ .scroll"), needle)
	require.Contains(t, b.text("main"), "match")
	b.shot("leads-search")
	csv := string(b.download(`a[href="/leads/export.csv"]`))
	require.True(t, strings.HasPrefix(csv, "id,name,email,phone,businessName,source,createdAt"), csv)
	require.Contains(t, csv, needle)
}

func TestTwoTurnChatKeptAcrossReloads(t *testing.T) {
	b := newBrowser(t)
	b.signUp(unique("chat"))
	b.open("/assistant")
	b.submit(`form[action="/assistant"]`, map[string]string{"#message": "How is my account doing?"}, "button[type=submit]")
	b.submit(`form[action="/assistant"]`, map[string]string{"#message": "And what should I do next?"}, "button[type=submit]")
	b.open("/assistant")
	var turns int
	b.run(chromedp.Evaluate(`document.querySelectorAll("ol.turns > li").length`, &turns))
	require.Equal(t, 2, turns, "both turns are kept after a reload")
	require.Contains(t, b.text("ol.turns"), "And what should I do next?")
	b.shot("chat")
}
