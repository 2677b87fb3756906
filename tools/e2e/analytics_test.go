package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Analytics through the ingress with the demo accounts. Source addresses: 127.0.4.x.

func chatUsed(t *testing.T, c *Client, token string) float64 {
	t.Helper()
	r := c.Do(t, http.MethodGet, "/api/pql-check?feature=chat", token, nil).Expect(t, http.StatusOK)
	chat, _ := r.JSON["features"].(map[string]any)["chat"].(map[string]any)
	require.NotNil(t, chat, "pql-check: %s", r.Raw)
	return chat["used"].(float64)
}

func TestAnalyticsLogUsageAndPQLCheck(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.4.1")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))

	before := chatUsed(t, c, tok)
	r := c.Do(t, http.MethodPost, "/api/log-usage", tok,
		map[string]any{"feature": "chat", "action": "send_message", "meta": map[string]any{"from": "e2e"}})
	r.Expect(t, http.StatusOK)
	require.Equal(t, true, r.JSON["ok"])
	require.Equal(t, true, r.JSON["logged"])
	require.True(t, strings.HasPrefix(r.JSON["eventId"].(string), "evt_"), "eventId: %s", r.Raw)
	require.Regexp(t, isoMillis, r.JSON["timestamp"])
	require.NotEmpty(t, r.Header.Get("X-RateLimit-Remaining"))
	// A logged chat is kept but not counted again: chat counts the assistant's own reservations
	// (TestFidelityAChatIsCountedOnce). Other suites may chat meanwhile, so no exact figure here.
	require.GreaterOrEqual(t, chatUsed(t, c, tok), before)

	p := c.Do(t, http.MethodGet, "/api/pql-check", tok, nil).Expect(t, http.StatusOK)
	require.ElementsMatch(t, []string{"ok", "nearLimit", "usagePercent", "features", "upgradeUrl"}, analyticsKeys(p.JSON))
	require.IsType(t, true, p.JSON["nearLimit"])
	require.IsType(t, float64(0), p.JSON["usagePercent"])
	require.NotEmpty(t, p.JSON["upgradeUrl"])
	features := p.JSON["features"].(map[string]any)
	require.ElementsMatch(t, []string{"chat", "lead_scoring", "lead_finder"}, analyticsKeys(features))
	for name, f := range features {
		require.ElementsMatch(t, []string{"used", "limit", "pct", "unlimited"}, analyticsKeys(f.(map[string]any)), name)
	}
	// Unlimited has one representation: limit null and unlimited true.
	require.Nil(t, features["chat"].(map[string]any)["limit"], "chat is unlimited on full_stack")
	require.Equal(t, true, features["chat"].(map[string]any)["unlimited"])
	for name, f := range features {
		require.Equal(t, true, f.(map[string]any)["unlimited"], "%s is unlimited on full_stack", name)
	}
}

func TestAnalyticsIdempotencyKeyMakesRetriesSafe(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.4.2")
	tok := s.Token(t, s.Get(t, "DEMO_FREE_EMAIL"))
	// The same key and body on every run: later runs replay the first run's answer.
	key := http.Header{"Idempotency-Key": {"e2e-analytics-retry"}}
	body := map[string]any{"feature": "audit_tool", "action": "export_csv"}
	first := c.Do(t, http.MethodPost, "/api/log-usage", tok, body, key).Expect(t, http.StatusOK)
	again := c.Do(t, http.MethodPost, "/api/log-usage", tok, body, key).Expect(t, http.StatusOK)
	require.Equal(t, first.JSON, again.JSON)
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
}

func TestAnalyticsBadInputIsRefusedNamingTheField(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.4.3")
	tok := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	meta := func(n int) string { return `{"k":"` + strings.Repeat("x", n-len(`{"k":""}`)) + `"}` }

	c.Do(t, http.MethodPost, "/api/log-usage", tok, `{"feature":"audit_tool","meta":`+meta(2048)+`}`).Expect(t, http.StatusOK)
	for _, tc := range []struct {
		name, method, path, body, field string
	}{
		{"missing feature", http.MethodPost, "/api/log-usage", `{"action":"export_csv"}`, "feature"},
		{"meta of 2,049 bytes", http.MethodPost, "/api/log-usage", `{"feature":"chat","meta":` + meta(2049) + `}`, "meta"},
		{"meta not an object", http.MethodPost, "/api/log-usage", `{"feature":"chat","meta":"text"}`, "meta"},
		{"unknown feature filter", http.MethodGet, "/api/pql-check?feature=audit_tool", "", "feature"},
		{"threshold 101", http.MethodGet, "/api/churn-predict?threshold=101", "", "threshold"},
		{"threshold -1", http.MethodGet, "/api/churn-predict?threshold=-1", "", "threshold"},
		{"limit 0", http.MethodGet, "/api/churn-predict?limit=0", "", "limit"},
		{"limit over the bound", http.MethodGet, "/api/churn-predict?limit=1000", "", "limit"},
	} {
		var body any
		if tc.body != "" {
			body = tc.body
		}
		r := c.Do(t, tc.method, tc.path, tok, body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", tc.name, r.Raw)
		require.Equal(t, false, r.JSON["ok"], tc.name)
		require.Equal(t, tc.field, r.JSON["field"], tc.name)
		require.NotEmpty(t, r.JSON["error"], tc.name)
		require.NotEmpty(t, r.JSON["code"], tc.name)
	}
}

func TestAnalyticsRoutesRequireAToken(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.4.4")
	for _, route := range [][2]string{
		{http.MethodPost, "/api/log-usage"}, {http.MethodGet, "/api/pql-check"},
		{http.MethodGet, "/api/health-score"}, {http.MethodGet, "/api/churn-predict"},
	} {
		for _, tok := range []string{"", "not.a.token"} {
			var body any
			if route[0] == http.MethodPost {
				body = map[string]any{"feature": "chat"}
			}
			r := c.Do(t, route[0], route[1], tok, body)
			require.Equal(t, http.StatusUnauthorized, r.Status, "%s %s: %s", route[0], route[1], r.Raw)
			require.Equal(t, false, r.JSON["ok"])
		}
	}
}

func TestAnalyticsHealthScoreHasTenSignals(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.4.5")
	r := c.Do(t, http.MethodGet, "/api/health-score", s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL")), nil).Expect(t, http.StatusOK)
	require.ElementsMatch(t, []string{"ok", "score", "tier", "signals", "updatedAt"}, analyticsKeys(r.JSON))
	score := r.JSON["score"].(float64)
	require.True(t, score >= 0 && score <= 100 && score == float64(int(score)), "score %v", score)
	require.Contains(t, []string{"healthy", "at_risk", "critical"}, r.JSON["tier"])
	require.Regexp(t, isoMillis, r.JSON["updatedAt"])
	signals := r.JSON["signals"].(map[string]any)
	require.Len(t, signals, 10)
	for _, name := range []string{"loginRecency", "featureAdoption", "chatEngagement", "leadActivity"} {
		v, ok := signals[name].(float64)
		require.True(t, ok && v >= 0 && v <= 100, "%s = %v", name, signals[name])
	}
}

func TestAnalyticsChurnPredictRanksTheDemoClients(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.4.6")
	r := c.Do(t, http.MethodGet, "/api/churn-predict", s.Token(t, s.Get(t, "DEMO_FREE_EMAIL")), nil)
	r.Expect(t, http.StatusForbidden)
	require.Equal(t, "plan_upgrade_required", r.JSON["code"])
	require.NotEmpty(t, r.JSON["upgradeUrl"])

	for _, emailKey := range []string{"DEMO_GROWTH_EMAIL", "DEMO_FULL_STACK_EMAIL"} {
		r = c.Do(t, http.MethodGet, "/api/churn-predict?threshold=0&limit=100", s.Token(t, s.Get(t, emailKey)), nil).Expect(t, http.StatusOK)
		require.ElementsMatch(t, []string{"ok", "atRisk", "clients"}, analyticsKeys(r.JSON))
		clients := r.JSON["clients"].([]any)
		require.GreaterOrEqual(t, len(clients), 8, "make up seeds demo clients: %s", r.Raw)
		// Other suites add clients through the inbound webhook; atRisk counts beyond the page.
		atRisk := r.JSON["atRisk"].(float64)
		require.GreaterOrEqual(t, atRisk, float64(len(clients)))
		if atRisk <= 100 {
			require.Equal(t, float64(len(clients)), atRisk)
		}
		tiers := map[bool]int{}
		prev := 101.0
		for _, raw := range clients {
			cl := raw.(map[string]any)
			require.ElementsMatch(t, []string{"email", "businessName", "churnProbability", "healthScore", "lastLogin", "recommendation"}, analyticsKeys(cl))
			p := cl["churnProbability"].(float64)
			require.LessOrEqual(t, p, prev, "ranked by churnProbability, descending")
			prev = p
			if cl["lastLogin"] != nil {
				require.Regexp(t, isoMillis, cl["lastLogin"])
			}
			require.Contains(t, cl["recommendation"], "Weakest signals:")
			tiers[cl["healthScore"].(float64) < 30]++
		}
		require.Positive(t, tiers[true], "some demo clients are critical")
		require.Positive(t, tiers[false], "some demo clients are not")

		// The default threshold (60) keeps only the likely churners.
		r = c.Do(t, http.MethodGet, "/api/churn-predict?limit=3", s.Token(t, s.Get(t, emailKey)), nil).Expect(t, http.StatusOK)
		require.LessOrEqual(t, len(r.JSON["clients"].([]any)), 3)
		for _, raw := range r.JSON["clients"].([]any) {
			require.GreaterOrEqual(t, raw.(map[string]any)["churnProbability"], 60.0)
		}
	}
}

func analyticsKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
