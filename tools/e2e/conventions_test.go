package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// HTTP conventions clients rely on, through the ingress: Idempotency-Key on what creates, spends
// or sends; 405 with Allow; HEAD; strict JSON. Source addresses: 127.0.20.x.

// idemKey returns headers carrying an Idempotency-Key unique to this test run.
func idemKey(t *testing.T, name string) http.Header {
	return http.Header{"Idempotency-Key": {fmt.Sprintf("e2e-%s-%s", name, strings.TrimSuffix(uniqueEmail(t), "@example.com"))}}
}

func TestARetriedPostWithAnIdempotencyKeyHasOneEffect(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.20.1")
	_, tok := signUp(t, s, "127.0.20.1", "correct horse battery staple")

	t.Run("POST /api/keys creates one key and shows it once", func(t *testing.T) {
		key := idemKey(t, "keys")
		first := c.Do(t, http.MethodPost, "/api/keys", tok, map[string]string{"name": "ci"}, key).Expect(t, http.StatusCreated)
		again := c.Do(t, http.MethodPost, "/api/keys", tok, map[string]string{"name": "ci"}, key).Expect(t, http.StatusConflict)
		require.Equal(t, "idempotency_secret_withheld", again.JSON["code"])
		require.NotContains(t, string(again.Raw), first.JSON["key"].(string), "a retry shows the key again")
		require.Equal(t, first.JSON["id"], again.JSON["answer"].(map[string]any)["id"], "the retry names the key the first request made")
		list := c.Do(t, http.MethodGet, "/api/keys", tok, nil).Expect(t, http.StatusOK)
		require.Len(t, list.JSON["keys"], 1, "two keys were created by one retried request: %s", list.Raw)

		other := c.Do(t, http.MethodPost, "/api/keys", tok, map[string]string{"name": "other"}, key).Expect(t, http.StatusConflict)
		require.Equal(t, "idempotency_key_reused", other.JSON["code"])
	})

	t.Run("POST /api/lead-quality-batch spends once", func(t *testing.T) {
		key := idemKey(t, "batch")
		body := map[string]any{"leads": []map[string]string{{"email": "owner@austinplumbing.example", "businessName": "Austin Plumbing"}}}
		first := c.Do(t, http.MethodPost, "/api/lead-quality-batch", tok, body, key).Expect(t, http.StatusOK)
		again := c.Do(t, http.MethodPost, "/api/lead-quality-batch", tok, body, key).Expect(t, http.StatusOK)
		require.Equal(t, first.JSON["remaining"], again.JSON["remaining"])
		after := c.Do(t, http.MethodGet, "/api/pql-check?feature=lead_scoring", tok, nil).Expect(t, http.StatusOK)
		used := after.JSON["features"].(map[string]any)["lead_scoring"].(map[string]any)["used"]
		require.EqualValues(t, 1, used, "a retried batch was charged twice")
	})

	t.Run("POST /api/chat counts once", func(t *testing.T) {
		key := idemKey(t, "chat")
		before := chatUsed(t, c, tok)
		first := c.Do(t, http.MethodPost, "/api/chat", tok, map[string]string{"message": "How many leads do I have?"}, key).Expect(t, http.StatusOK)
		again := c.Do(t, http.MethodPost, "/api/chat", tok, map[string]string{"message": "How many leads do I have?"}, key).Expect(t, http.StatusOK)
		require.Equal(t, first.JSON, again.JSON)
		require.Equal(t, before+1, chatUsed(t, c, tok), "a retried chat was counted twice")
	})
}

func TestAWrongMethodIs405WithAllowAndHeadIsServed(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.20.2")
	tok := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	cases := []struct{ method, path, allow string }{
		{http.MethodGet, "/api/auth", "POST, OPTIONS"},
		{http.MethodPost, "/api/pql-check", "GET, HEAD, OPTIONS"},
		{http.MethodGet, "/api/log-usage", "POST, OPTIONS"},
		{http.MethodPost, "/api/health-score", "GET, HEAD, OPTIONS"},
		{http.MethodPut, "/api/lead-finder", "POST, OPTIONS"},
		{http.MethodDelete, "/api/keys", "GET, HEAD, POST, OPTIONS"},
	}
	for _, tc := range cases {
		r := c.Do(t, tc.method, tc.path, tok, nil).Expect(t, http.StatusMethodNotAllowed)
		require.Equal(t, tc.allow, r.Header.Get("Allow"), "%s %s", tc.method, tc.path)
		require.Equal(t, "method_not_allowed", r.JSON["code"], "%s %s", tc.method, tc.path)
	}
	for _, path := range []string{"/api/pql-check", "/api/leads", "/api/auth/jwks.json", "/api/scout-stats", "/api/openapi.json"} {
		r := c.Do(t, http.MethodHead, path, tok, nil).Expect(t, http.StatusOK)
		require.Empty(t, r.Raw, path)
	}
}

func TestBodiesAreStrictJSON(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.20.3")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))
	find := func(body string, hdr http.Header) *Response {
		if hdr == nil {
			return c.Do(t, http.MethodPost, "/api/lead-finder", tok, body)
		}
		return c.Do(t, http.MethodPost, "/api/lead-finder", tok, body, hdr)
	}
	r := find(`{"industry":"plumbing","location":"Austin, TX","Limit":5}`, nil).Expect(t, http.StatusBadRequest)
	require.Equal(t, "unknown_field", r.JSON["code"])
	require.Equal(t, "Limit", r.JSON["field"])

	r = find(`{"industry":"plumbing","location":"Austin, TX","limit":1,"limit":50}`, nil).Expect(t, http.StatusBadRequest)
	require.Equal(t, "duplicate_field", r.JSON["code"])
	require.Equal(t, "limit", r.JSON["field"])

	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded"} {
		r = find(`{"industry":"plumbing","location":"Austin, TX"}`, http.Header{"Content-Type": {ct}}).Expect(t, http.StatusUnsupportedMediaType)
		require.Equal(t, "unsupported_media_type", r.JSON["code"], ct)
	}

	// A client pinned to the version before strict bodies is answered as it was then.
	r = find(`{"industry":"plumbing","location":"Austin, TX","Limit":1}`,
		http.Header{"Content-Type": {"text/plain"}, "Api-Version": {"2026-11-23"}}).Expect(t, http.StatusOK)
	require.Equal(t, "2026-11-23", r.Header.Get("API-Version"))
	require.Len(t, r.JSON["leads"], 1)
}

// A page on another origin may read the public routes, and nothing else.
func TestPublicRoutesAnswerAnyOriginAndAuthenticatedOnesNone(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.20.4")
	origin := http.Header{"Origin": {"https://dashboard.example"}}
	preflight := http.Header{"Origin": {"https://dashboard.example"}, "Access-Control-Request-Method": {"GET"}}
	for _, path := range []string{"/api/agent-brain-public-feed", "/api/scout-stats", "/api/ext-webhook/sample", "/api/auth/jwks.json", "/api/openapi.json"} {
		r := c.Do(t, http.MethodOptions, path, "", nil, preflight).Expect(t, http.StatusNoContent)
		require.Equal(t, "*", r.Header.Get("Access-Control-Allow-Origin"), path)
		require.Contains(t, r.Header.Get("Access-Control-Allow-Methods"), "GET", path)
		r = c.Do(t, http.MethodGet, path, "", nil, origin).Expect(t, http.StatusOK)
		require.Equal(t, "*", r.Header.Get("Access-Control-Allow-Origin"), path)
		require.Empty(t, r.Header.Get("Access-Control-Allow-Credentials"), path)
	}
	tok := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	for _, path := range []string{"/api/leads", "/api/pql-check", "/api/keys"} {
		r := c.Do(t, http.MethodOptions, path, "", nil, preflight).Expect(t, http.StatusNoContent)
		require.Empty(t, r.Header.Get("Access-Control-Allow-Origin"), "%s must stay closed to other origins", path)
		r = c.Do(t, http.MethodGet, path, tok, nil, origin).Expect(t, http.StatusOK)
		require.Empty(t, r.Header.Get("Access-Control-Allow-Origin"), path)
	}
}

// Large JSON and HTML answers go gzip-compressed to clients that ask; small ones as they are.
func TestTheIngressCompressesLargeAnswers(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.20.5")
	gzip := http.Header{"Accept-Encoding": {"gzip, br"}}
	for _, path := range []string{"/api/openapi.json", "/api/openapi"} {
		r := c.Do(t, http.MethodGet, path, "", nil, gzip).Expect(t, http.StatusOK)
		require.Equal(t, "gzip", r.Header.Get("Content-Encoding"), path)
		require.Contains(t, r.Header.Get("Vary"), "Accept-Encoding", path)
	}
	r := c.Do(t, http.MethodGet, "/api/auth/jwks.json", "", nil, gzip).Expect(t, http.StatusOK)
	require.Empty(t, r.Header.Get("Content-Encoding"), "a body under 1 KiB is not worth compressing")
	r = c.Do(t, http.MethodGet, "/api/openapi.json", "", nil, http.Header{"Accept-Encoding": {"identity"}}).Expect(t, http.StatusOK)
	require.Empty(t, r.Header.Get("Content-Encoding"))
}
