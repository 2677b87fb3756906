package e2e

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Identity and the ingress in front of it. Source addresses: 127.0.1.x.

var isoMillis = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func verifyBody() map[string]string { return map[string]string{"action": "verify"} }

func TestIngressRedirectsPlainHTTPToHTTPS(t *testing.T) {
	s := UseStack(t)
	r := s.PlainClient(t, "127.0.1.1").Do(t, http.MethodPost, "/api/auth?x=1", "", nil)
	require.Contains(t, []int{http.StatusPermanentRedirect, http.StatusMovedPermanently}, r.Status, "body: %s", r.Raw)
	require.Equal(t, s.BaseURL+"/api/auth?x=1", r.Header.Get("Location"))
}

func TestIngressServesHTTP2WithHSTSAndRequestID(t *testing.T) {
	s := UseStack(t)
	r := s.Client(t, "127.0.1.1").Do(t, http.MethodGet, "/api/auth/jwks.json", "", nil)
	r.Expect(t, http.StatusOK)
	require.Equal(t, "HTTP/2.0", r.Proto)
	hsts := r.Header.Values("Strict-Transport-Security")
	require.Len(t, hsts, 1, "exactly one HSTS header")
	require.Contains(t, hsts[0], "max-age=")
	require.NotEmpty(t, r.Header.Get("X-Request-Id"))
	keys, _ := r.JSON["keys"].([]any)
	require.NotEmpty(t, keys, "the JWKS publishes at least one key: %s", r.Raw)

	// A caller's request id is kept so that it can be followed through the logs.
	r = s.Client(t, "127.0.1.1").Do(t, http.MethodGet, "/api/auth/jwks.json", "", nil, http.Header{"X-Request-Id": {"e2e-trace-42"}})
	require.Equal(t, "e2e-trace-42", r.Header.Get("X-Request-Id"))
}

func TestIngressAnswersUnknownPathsWithEnvelope(t *testing.T) {
	s := UseStack(t)
	r := s.Client(t, "127.0.1.1").Do(t, http.MethodGet, "/api/no-such-route", "", nil)
	r.Expect(t, http.StatusNotFound)
	require.Equal(t, map[string]any{"ok": false, "error": "no route", "code": "not_found"}, r.JSON)
}

func TestLoginReturnsToken(t *testing.T) {
	s := UseStack(t)
	email := s.Get(t, "DEMO_GROWTH_EMAIL")
	r := s.Client(t, "127.0.1.2").Do(t, http.MethodPost, "/api/auth", "",
		map[string]string{"email": email, "password": s.Get(t, "DEMO_PASSWORD")})
	r.Expect(t, http.StatusOK)
	require.Equal(t, true, r.JSON["ok"])
	require.Equal(t, email, r.JSON["email"])
	require.Equal(t, "growth", r.JSON["plan"])
	tok, _ := r.JSON["token"].(string)
	require.Len(t, strings.Split(tok, "."), 3, "a JWT")
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"))
}

func TestVerifyReportsAccountAndExpiry(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.1.30")
	for _, tc := range []struct{ emailKey, plan string }{
		{"DEMO_FREE_EMAIL", "free"}, {"DEMO_GROWTH_EMAIL", "growth"}, {"DEMO_FULL_STACK_EMAIL", "full_stack"},
	} {
		email := s.Get(t, tc.emailKey)
		r := c.Do(t, http.MethodPost, "/api/auth", s.Token(t, email), verifyBody())
		r.Expect(t, http.StatusOK)
		require.Equal(t, true, r.JSON["ok"])
		require.Equal(t, true, r.JSON["valid"])
		require.Equal(t, email, r.JSON["email"])
		require.Equal(t, tc.plan, r.JSON["plan"])

		exp, _ := r.JSON["expiresAt"].(string)
		require.Regexp(t, isoMillis, exp)
		at, err := time.Parse(time.RFC3339Nano, exp)
		require.NoError(t, err)
		// Tokens live 24 hours; the cached token was issued moments ago in this run.
		require.WithinDuration(t, time.Now().Add(24*time.Hour), at, 5*time.Minute)
	}
}

// A wrong password and an unknown email are indistinguishable to the caller.
func TestLoginFailuresLookAlike(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.1.3")
	wrongPassword := c.Do(t, http.MethodPost, "/api/auth", "",
		map[string]string{"email": s.Get(t, "DEMO_FREE_EMAIL"), "password": "not-the-password"})
	unknownEmail := c.Do(t, http.MethodPost, "/api/auth", "",
		map[string]string{"email": "nobody@bizassist.local", "password": "not-the-password"})

	wrongPassword.Expect(t, http.StatusUnauthorized)
	unknownEmail.Expect(t, http.StatusUnauthorized)
	require.Equal(t, "invalid_credentials", wrongPassword.JSON["code"])
	require.Equal(t, false, wrongPassword.JSON["ok"])
	require.Equal(t, wrongPassword.JSON, unknownEmail.JSON)
}

func TestLoginRejectsBadInput(t *testing.T) {
	s := UseStack(t)
	cases := []struct {
		name, body, code, field string
	}{
		{"missing password", `{"email":"demo-free@bizassist.local"}`, "missing_field", "password"},
		{"missing email", `{"password":"x"}`, "missing_field", "email"},
		{"malformed JSON", `{"email":`, "malformed_json", ""},
		{"wrong type", `{"email":5,"password":"x"}`, "invalid_type", "email"},
		{"unknown field", `{"email":"a@b.c","password":"x","admin":true}`, "unknown_field", "admin"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := s.Client(t, "127.0.1."+strconv.Itoa(10+i))
			r := c.Do(t, http.MethodPost, "/api/auth", "", tc.body)
			r.Expect(t, http.StatusBadRequest)
			require.Equal(t, false, r.JSON["ok"])
			require.Equal(t, tc.code, r.JSON["code"], "body: %s", r.Raw)
			require.Contains(t, r.JSON["error"], tc.field)
		})
	}
}

func TestOversizedBodiesAre413(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.1.20")
	// Over identity's own limit for credentials, well under the ingress limit.
	small := `{"email":"a@b.c","password":"` + strings.Repeat("x", 8<<10) + `"}`
	// Over the ingress's 1 MiB: refused by nginx before the service sees it.
	large := `{"email":"a@b.c","password":"` + strings.Repeat("x", 2<<20) + `"}`
	for _, body := range []string{small, large} {
		r := c.Do(t, http.MethodPost, "/api/auth", "", body)
		r.Expect(t, http.StatusRequestEntityTooLarge)
		require.Equal(t, false, r.JSON["ok"], "body: %s", r.Raw)
		require.Equal(t, "body_too_large", r.JSON["code"])
	}
}

func TestVerifyRejectsBadTokens(t *testing.T) {
	s := UseStack(t)
	good := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	parts := strings.Split(good, ".")
	require.Len(t, parts, 3)

	_, otherKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	forged := parts[0] + "." + parts[1] + "." + b64(ed25519.Sign(otherKey, []byte(parts[0]+"."+parts[1])))
	claims, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	upgraded := parts[0] + "." + b64([]byte(strings.Replace(string(claims), `"plan":"growth"`, `"plan":"full_stack"`, 1))) + "." + parts[2]
	algNone := b64([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."

	// No bearer token at all is "unauthenticated"; a token that fails verification is
	// "invalid_token".
	cases := []struct{ name, authorization, code string }{
		{"no Authorization", "", "unauthenticated"},
		{"not a bearer", "Basic ZGVtbzpkZW1v", "unauthenticated"},
		{"empty bearer", "Bearer ", "unauthenticated"},
		{"not a JWT", "Bearer not-a-jwt", "invalid_token"},
		{"signed by another key", "Bearer " + forged, "invalid_token"},
		{"claims changed", "Bearer " + upgraded, "invalid_token"},
		{"alg none", "Bearer " + algNone, "invalid_token"},
	}
	c := s.Client(t, "127.0.1.40")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := http.Header{}
			if tc.authorization != "" {
				hdr.Set("Authorization", tc.authorization)
			}
			r := c.Do(t, http.MethodPost, "/api/auth", "", verifyBody(), hdr)
			r.Expect(t, http.StatusUnauthorized)
			require.Equal(t, false, r.JSON["ok"])
			require.Equal(t, false, r.JSON["valid"], "body: %s", r.Raw)
			require.NotEmpty(t, r.JSON["error"])
			require.Equal(t, tc.code, r.JSON["code"])
		})
	}
}

// The 61st request in a minute from one address is refused with the rate-limit headers, while
// another address is still served. GCRA refills one request a second, so if sending took n
// seconds up to n more may pass before the refusal.
func TestRateLimitIsPerSourceIP(t *testing.T) {
	s := UseStack(t)
	token := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	c := s.Client(t, "127.0.1.60")

	start := time.Now()
	var refused *Response
	passed := 0
	for i := 0; i < 120 && refused == nil; i++ {
		r := c.Do(t, http.MethodPost, "/api/auth", token, verifyBody())
		switch r.Status {
		case http.StatusOK:
			passed++
			require.Equal(t, "60", r.Header.Get("X-RateLimit-Limit"))
		case http.StatusTooManyRequests:
			refused = r
		default:
			t.Fatalf("request %d: status %d: %s", i+1, r.Status, r.Raw)
		}
	}
	require.NotNil(t, refused, "no 429 after %d requests", passed)
	require.GreaterOrEqual(t, passed, 60)
	require.LessOrEqual(t, passed, 60+int(time.Since(start).Seconds())+1)

	require.Equal(t, false, refused.JSON["ok"])
	require.Equal(t, "rate_limited", refused.JSON["code"], "body: %s", refused.Raw)
	retry, err := strconv.Atoi(refused.Header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After %q", refused.Header.Get("Retry-After"))
	require.Positive(t, retry)
	require.Equal(t, "60", refused.Header.Get("X-RateLimit-Limit"))
	require.Equal(t, "0", refused.Header.Get("X-RateLimit-Remaining"))
	require.NotEmpty(t, refused.Header.Get("X-RateLimit-Reset"))

	s.Client(t, "127.0.1.61").Do(t, http.MethodPost, "/api/auth", token, verifyBody()).Expect(t, http.StatusOK)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func TestIngressServesTheMergedAPIReference(t *testing.T) {
	s := UseStack(t)
	r := s.Client(t, "127.0.1.9").Do(t, http.MethodGet, "/api/openapi.json", "", nil).Expect(t, http.StatusOK)
	require.Equal(t, "3.1.0", r.JSON["openapi"])
	require.Contains(t, r.JSON["webhooks"], "new_lead", "receivers find the outbound events in the document")
	paths, _ := r.JSON["paths"].(map[string]any)
	for _, p := range []string{"/api/auth", "/api/lead-finder", "/api/chat", "/api/log-usage", "/api/ext-webhook"} {
		require.Contains(t, paths, p, "the merged document covers every service")
	}
	page := s.Client(t, "127.0.1.9").Do(t, http.MethodGet, "/api/openapi", "", nil).Expect(t, http.StatusOK)
	require.Contains(t, page.Header.Get("Content-Type"), "text/html")
	require.Contains(t, string(page.Raw), "/api/lead-quality-batch")
}
