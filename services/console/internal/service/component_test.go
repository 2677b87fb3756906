package service_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api/apitest"
	"github.com/bizassist/bizassist/services/console/internal/service"
)

// browser is a cookie-keeping client that does not follow redirects. It keeps __Host- cookies
// over the test's plain HTTP, which a real browser would refuse; the flags are checked in the
// browser tests (tools/e2e/console).
type browser struct {
	t       *testing.T
	base    string
	cookies map[string]string
}

type page struct {
	status   int
	location string
	body     string
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (p page) csrf(t *testing.T) string {
	m := csrfField.FindStringSubmatch(p.body)
	require.NotNil(t, m, "no CSRF field in %s", p.body)
	return m[1]
}

func (b *browser) do(method, path string, form url.Values) page {
	b.t.Helper()
	req, err := http.NewRequest(method, b.base+path, strings.NewReader(form.Encode()))
	require.NoError(b.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for name, value := range b.cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: value})
	}
	c := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	for _, ck := range resp.Cookies() {
		if ck.MaxAge < 0 {
			delete(b.cookies, ck.Name)
		} else {
			b.cookies[ck.Name] = ck.Value
		}
	}
	return page{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(body)}
}

// start runs the console on a real socket against real PostgreSQL and Redis, with the services'
// API faked (apitest).
func start(t *testing.T) (*browser, *apitest.API) {
	t.Helper()
	fake := apitest.New(t)
	cfg := fake.Config()
	ln, base := platformtest.Listen(t)
	environ := platformtest.Env(t, service.Name, cfg.IdentityURL+"/api/auth/jwks.json")
	environ["IDENTITY_URL"], environ["LEADS_URL"], environ["ASSISTANT_URL"] = cfg.IdentityURL, cfg.LeadsURL, cfg.AssistantURL
	environ["ANALYTICS_URL"], environ["INTEGRATIONS_URL"] = cfg.AnalyticsURL, cfg.IntegrationsURL
	platformtest.Start(t, ln, service.New, environ)
	platformtest.WaitReady(t, base)
	return &browser{t: t, base: base, cookies: map[string]string{}}, fake
}

// signIn signs the browser in through the sign-in form and returns the Account page.
func (b *browser) signIn() page {
	b.t.Helper()
	form := b.do(http.MethodGet, "/sign-in", nil)
	p := b.do(http.MethodPost, "/sign-in", url.Values{"email": {apitest.Email}, "password": {apitest.Password}, "csrf": {form.csrf(b.t)}})
	require.Equal(b.t, http.StatusSeeOther, p.status, p.body)
	account := b.do(http.MethodGet, "/account", nil)
	require.Equal(b.t, http.StatusOK, account.status, account.body)
	return account
}

func TestFormsWithoutTheSessionsCSRFTokenChangeNothing(t *testing.T) {
	t.Parallel()
	b, fake := start(t)

	form := b.do(http.MethodGet, "/sign-in", nil)
	require.Equal(t, http.StatusOK, form.status)
	p := b.do(http.MethodPost, "/sign-in", url.Values{"email": {apitest.Email}, "password": {"x"}, "csrf": {"forged"}})
	require.Equal(t, http.StatusForbidden, p.status)
	require.Empty(t, fake.Calls("POST /api/auth"), "a forged sign-in never reaches identity")

	b.signIn()
	keys := b.do(http.MethodGet, "/keys", nil)
	require.Equal(t, http.StatusOK, keys.status)
	for _, token := range []string{"", "forged", form.csrf(t)} { // none, made up, another secret's
		p := b.do(http.MethodPost, "/keys", url.Values{"name": {"CRM"}, "csrf": {token}})
		require.Equal(t, http.StatusForbidden, p.status, "csrf %q", token)
		require.Contains(t, p.body, "nothing was changed")
		require.Empty(t, fake.Calls("POST /api/keys"), "csrf %q reached identity", token)
	}
	p = b.do(http.MethodPost, "/keys", url.Values{"name": {"CRM"}, "csrf": {keys.csrf(t)}})
	require.Equal(t, http.StatusCreated, p.status, p.body)
	require.Len(t, fake.Calls("POST /api/keys"), 1, "the page's own token is accepted")
	require.Regexp(t, `id="new-key" readonly value="bza_[0-9A-Za-z]{36}"`, p.body, "the new key is shown once")
}

func TestAWrongCurrentPasswordIsShownByItsFieldAndKeepsTheSession(t *testing.T) {
	t.Parallel()
	b, fake := start(t)
	account := b.signIn()
	// identity's answer to a wrong current password: 403 current_password_incorrect naming the field.
	change := url.Values{"currentPassword": {"wrong one"}, "newPassword": {"a new passphrase"},
		"confirmPassword": {"a new passphrase"}, "csrf": {account.csrf(t)}}
	p := b.do(http.MethodPost, "/account/password", change)
	require.Equal(t, http.StatusForbidden, p.status, p.body)
	require.Regexp(t, `id="currentPassword-error">The current password is incorrect<`, p.body)
	require.NotContains(t, p.body, "Upgrade", "not mistaken for a plan refusal")
	require.Equal(t, http.StatusOK, b.do(http.MethodGet, "/account", nil).status, "still signed in")

	// A refused token ends the session, on this page as on every other.
	fake.RevokeTokens()
	p = b.do(http.MethodPost, "/account/password", change)
	require.Equal(t, http.StatusSeeOther, p.status)
	require.Equal(t, "/sign-in?done=expired", p.location)
	p = b.do(http.MethodGet, "/account", nil)
	require.Equal(t, http.StatusSeeOther, p.status, "the session is over server-side")
}

func TestSignInRedirectsOnlyToAPathOfThisSite(t *testing.T) {
	t.Parallel()
	first, _ := start(t)
	for next, want := range map[string]string{
		"/leads?page=2":             "/leads?page=2",
		"/clients/acc_1":            "/clients/acc_1",
		"/\t/evil.example/phish":    "/", // browsers drop tabs and newlines: //evil.example
		"/\v/evil.example":          "/",
		"/\x00/evil.example":        "/",
		"/\r\n/evil.example":        "/",
		"//evil.example":            "/",
		"/%2f%2fevil.example":       "/",
		"/%2F/evil.example":         "/",
		"/\\evil.example":           "/", // browsers read \ as /
		"\\\\evil.example":          "/",
		"/%5cevil.example":          "/",
		"https:evil.example":        "/",
		"https://evil.example/":     "/",
		"javascript:alert(1)":       "/",
		"evil.example":              "/",
		"/ /evil.example":           "/",
		"/\u00a0/evil.example":      "/",
		"/\uff0f\uff0fevil.example": "/", // fullwidth solidus
		"/\u2215\u2215evil.example": "/", // division slash
		"/@evil.example":            "/@evil.example",
		"":                          "/",
	} {
		b := &browser{t: t, base: first.base, cookies: map[string]string{}}
		form := b.do(http.MethodGet, "/sign-in?next="+url.QueryEscape(next), nil)
		require.Equal(t, http.StatusOK, form.status)
		require.Contains(t, form.body, `name="next" value="`+want+`"`, "the form keeps only a safe next: %q", next)
		p := b.do(http.MethodPost, "/sign-in", url.Values{"email": {apitest.Email}, "password": {apitest.Password},
			"csrf": {form.csrf(t)}, "next": {next}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		require.Equal(t, want, p.location, "next %q", next)
	}
}
