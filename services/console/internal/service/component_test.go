package service_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/services/console/internal/service"
)

// fakeIdentity answers the identity routes the tested pages call, with the contract's shapes
// (services/identity/api/openapi.yaml), and records every call.
type fakeIdentity struct {
	mu    sync.Mutex
	calls []string
	// password is the status and error envelope POST /api/auth/password answers with.
	passwordStatus int
	passwordBody   map[string]any
}

func (f *fakeIdentity) called(call string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if c == call {
			return true
		}
	}
	return false
}

func (f *fakeIdentity) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	status, body := f.passwordStatus, f.passwordBody
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	answer := func(status int, v any) { w.WriteHeader(status); _ = json.NewEncoder(w).Encode(v) }
	switch r.Method + " " + r.URL.Path {
	case "POST /api/auth": // sign-in and verify
		answer(http.StatusOK, map[string]any{"ok": true, "valid": true, "token": "tok-owner", "email": "owner@example.com",
			"plan": "growth", "expiresAt": time.Now().Add(time.Hour).UTC()})
	case "POST /api/keys":
		answer(http.StatusCreated, map[string]any{"ok": true, "id": "key_1", "name": "CRM",
			"key": "bza_" + strings.Repeat("a", 36), "createdAt": time.Now().UTC()})
	case "GET /api/keys":
		answer(http.StatusOK, map[string]any{"ok": true, "keys": []any{}})
	case "POST /api/auth/password":
		answer(status, body)
	default:
		answer(http.StatusNotFound, map[string]any{"ok": false, "error": "no such route", "code": "not_found"})
	}
}

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

func start(t *testing.T) (*browser, *fakeIdentity) {
	t.Helper()
	id := &fakeIdentity{}
	api := httptest.NewServer(id)
	t.Cleanup(api.Close)
	ln, base := platformtest.Listen(t)
	environ := platformtest.Env(t, service.Name, api.URL+"/api/auth/jwks.json")
	for _, k := range []string{"IDENTITY_URL", "LEADS_URL", "ASSISTANT_URL", "ANALYTICS_URL", "INTEGRATIONS_URL"} {
		environ[k] = api.URL
	}
	platformtest.Start(t, ln, service.New, environ)
	platformtest.WaitReady(t, base)
	return &browser{t: t, base: base, cookies: map[string]string{}}, id
}

// signIn signs the browser in through the sign-in form and returns the Account page.
func (b *browser) signIn() page {
	b.t.Helper()
	form := b.do(http.MethodGet, "/sign-in", nil)
	p := b.do(http.MethodPost, "/sign-in", url.Values{"email": {"owner@example.com"}, "password": {"correct horse battery"}, "csrf": {form.csrf(b.t)}})
	require.Equal(b.t, http.StatusSeeOther, p.status, p.body)
	account := b.do(http.MethodGet, "/account", nil)
	require.Equal(b.t, http.StatusOK, account.status, account.body)
	return account
}

func TestFormsWithoutTheSessionsCSRFTokenChangeNothing(t *testing.T) {
	t.Parallel()
	b, id := start(t)

	form := b.do(http.MethodGet, "/sign-in", nil)
	require.Equal(t, http.StatusOK, form.status)
	p := b.do(http.MethodPost, "/sign-in", url.Values{"email": {"owner@example.com"}, "password": {"x"}, "csrf": {"forged"}})
	require.Equal(t, http.StatusForbidden, p.status)
	require.False(t, id.called("POST /api/auth"), "a forged sign-in never reaches identity")

	b.signIn()
	keys := b.do(http.MethodGet, "/keys", nil)
	require.Equal(t, http.StatusOK, keys.status)
	for _, token := range []string{"", "forged", form.csrf(t)} { // none, made up, another secret's
		p := b.do(http.MethodPost, "/keys", url.Values{"name": {"CRM"}, "csrf": {token}})
		require.Equal(t, http.StatusForbidden, p.status, "csrf %q", token)
		require.Contains(t, p.body, "nothing was changed")
		require.False(t, id.called("POST /api/keys"), "csrf %q reached identity", token)
	}
	p = b.do(http.MethodPost, "/keys", url.Values{"name": {"CRM"}, "csrf": {keys.csrf(t)}})
	require.Equal(t, http.StatusCreated, p.status, p.body)
	require.True(t, id.called("POST /api/keys"), "the page's own token is accepted")
	require.Contains(t, p.body, "bza_"+strings.Repeat("a", 36), "the new key is shown once")
}

func TestAWrongCurrentPasswordIsShownByItsFieldAndKeepsTheSession(t *testing.T) {
	t.Parallel()
	b, id := start(t)
	account := b.signIn()
	// identity's answer to a wrong current password (ChangePassword, errWrongPassword).
	id.mu.Lock()
	id.passwordStatus, id.passwordBody = http.StatusForbidden, map[string]any{"ok": false,
		"error": "the current password is incorrect", "code": "current_password_incorrect", "field": "currentPassword"}
	id.mu.Unlock()
	change := url.Values{"currentPassword": {"wrong one"}, "newPassword": {"a new passphrase"},
		"confirmPassword": {"a new passphrase"}, "csrf": {account.csrf(t)}}
	p := b.do(http.MethodPost, "/account/password", change)
	require.Equal(t, http.StatusForbidden, p.status, p.body)
	require.Regexp(t, `id="currentPassword-error">The current password is incorrect<`, p.body)
	require.NotContains(t, p.body, "Upgrade", "not mistaken for a plan refusal")
	require.Equal(t, http.StatusOK, b.do(http.MethodGet, "/account", nil).status, "still signed in")

	// A refused token ends the session, on this page as on every other.
	id.mu.Lock()
	id.passwordStatus, id.passwordBody = http.StatusUnauthorized, map[string]any{"ok": false, "error": "token revoked", "code": "unauthorized"}
	id.mu.Unlock()
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
		p := b.do(http.MethodPost, "/sign-in", url.Values{"email": {"owner@example.com"}, "password": {"correct horse battery"},
			"csrf": {form.csrf(t)}, "next": {next}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		require.Equal(t, want, p.location, "next %q", next)
	}
}
