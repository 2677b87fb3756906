// Package porttest drives the console's pages in tests as a browser would post its forms: a
// client that keeps cookies and does not follow redirects. It keeps __Host- cookies over the
// tests' plain HTTP, which a real browser would refuse; the flags are checked in the browser
// tests (tools/e2e/console).
package porttest

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Browser is one person's client of the console at a base URL.
type Browser struct {
	t       *testing.T
	base    string
	cookies map[string]string
}

// NewBrowser returns a browser with no cookies yet.
func NewBrowser(t *testing.T, base string) *Browser {
	return &Browser{t: t, base: base, cookies: map[string]string{}}
}

// Base is the console's URL the browser talks to.
func (b *Browser) Base() string { return b.base }

// Page is an answer as a test reads it.
type Page struct {
	Status   int
	Location string
	Header   http.Header
	Body     string // unescaped, so assertions read as the text does
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// CSRF is the page's form token.
func (p Page) CSRF(t *testing.T) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.Body)
	require.NotNil(t, m, "no CSRF field in %s", p.Body)
	return m[1]
}

// Do sends method to path, with form as its urlencoded body when not nil, and keeps the cookies
// the answer sets or clears.
func (b *Browser) Do(method, path string, form url.Values) Page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.t.Context(), method, b.base+path, body)
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
	raw, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	for _, ck := range resp.Cookies() {
		if ck.MaxAge < 0 {
			delete(b.cookies, ck.Name)
		} else {
			b.cookies[ck.Name] = ck.Value
		}
	}
	return Page{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Header: resp.Header, Body: html.UnescapeString(string(raw))}
}
