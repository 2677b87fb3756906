package service_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api/apitest"
	"github.com/bizassist/bizassist/services/console/internal/ports/porttest"
	"github.com/bizassist/bizassist/services/console/internal/service"
)

type (
	browser = porttest.Browser
	page    = porttest.Page
)

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
	return porttest.NewBrowser(t, base), fake
}

// signIn signs the browser in through the sign-in form and returns the Account page.
func signIn(t *testing.T, b *browser) page {
	t.Helper()
	form := b.Do(http.MethodGet, "/sign-in", nil)
	p := b.Do(http.MethodPost, "/sign-in", url.Values{"email": {apitest.Email}, "password": {apitest.Password}, "csrf": {form.CSRF(t)}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	account := b.Do(http.MethodGet, "/account", nil)
	require.Equal(t, http.StatusOK, account.Status, account.Body)
	return account
}

func TestFormsWithoutTheSessionsCSRFTokenChangeNothing(t *testing.T) {
	t.Parallel()
	b, fake := start(t)

	form := b.Do(http.MethodGet, "/sign-in", nil)
	require.Equal(t, http.StatusOK, form.Status)
	p := b.Do(http.MethodPost, "/sign-in", url.Values{"email": {apitest.Email}, "password": {"x"}, "csrf": {"forged"}})
	require.Equal(t, http.StatusForbidden, p.Status)
	require.Empty(t, fake.Calls("POST /api/auth"), "a forged sign-in never reaches identity")

	signIn(t, b)
	keys := b.Do(http.MethodGet, "/keys", nil)
	require.Equal(t, http.StatusOK, keys.Status)
	for _, token := range []string{"", "forged", form.CSRF(t)} { // none, made up, another secret's
		p := b.Do(http.MethodPost, "/keys", url.Values{"name": {"CRM"}, "csrf": {token}})
		require.Equal(t, http.StatusForbidden, p.Status, "csrf %q", token)
		require.Contains(t, p.Body, "nothing was changed")
		require.Empty(t, fake.Calls("POST /api/keys"), "csrf %q reached identity", token)
	}
	p = b.Do(http.MethodPost, "/keys", url.Values{"name": {"CRM"}, "csrf": {keys.CSRF(t)}})
	require.Equal(t, http.StatusCreated, p.Status, p.Body)
	require.Len(t, fake.Calls("POST /api/keys"), 1, "the page's own token is accepted")
	require.Regexp(t, `id="new-key" readonly value="bza_[0-9A-Za-z]{36}"`, p.Body, "the new key is shown once")
}

func TestAWrongCurrentPasswordIsShownByItsFieldAndKeepsTheSession(t *testing.T) {
	t.Parallel()
	b, fake := start(t)
	account := signIn(t, b)
	// identity's answer to a wrong current password: 403 current_password_incorrect naming the field.
	change := url.Values{"currentPassword": {"wrong one"}, "newPassword": {"a new passphrase"},
		"confirmPassword": {"a new passphrase"}, "csrf": {account.CSRF(t)}}
	p := b.Do(http.MethodPost, "/account/password", change)
	require.Equal(t, http.StatusForbidden, p.Status, p.Body)
	require.Regexp(t, `id="currentPassword-error">The current password is incorrect<`, p.Body)
	require.NotContains(t, p.Body, "Upgrade", "not mistaken for a plan refusal")
	require.Equal(t, http.StatusOK, b.Do(http.MethodGet, "/account", nil).Status, "still signed in")

	// A refused token ends the session, on this page as on every other.
	fake.RevokeTokens()
	p = b.Do(http.MethodPost, "/account/password", change)
	require.Equal(t, http.StatusSeeOther, p.Status)
	require.Equal(t, "/sign-in?done=expired", p.Location)
	p = b.Do(http.MethodGet, "/account", nil)
	require.Equal(t, http.StatusSeeOther, p.Status, "the session is over server-side")
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
		b := porttest.NewBrowser(t, first.Base())
		form := b.Do(http.MethodGet, "/sign-in?next="+url.QueryEscape(next), nil)
		require.Equal(t, http.StatusOK, form.Status)
		require.Contains(t, form.Body, `name="next" value="`+want+`"`, "the form keeps only a safe next: %q", next)
		p := b.Do(http.MethodPost, "/sign-in", url.Values{"email": {apitest.Email}, "password": {apitest.Password},
			"csrf": {form.CSRF(t)}, "next": {next}})
		require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
		require.Equal(t, want, p.Location, "next %q", next)
	}
}
