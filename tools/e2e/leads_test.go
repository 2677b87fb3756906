package e2e

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The leads service through the ingress, against make up's demo catalog (tools/catalog-gen,
// seed 42) and loopback DNS server. Source addresses: 127.0.2.x.

func leadKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func requireScore(t *testing.T, v any) {
	t.Helper()
	f, ok := v.(float64)
	require.True(t, ok, "score %v is a number", v)
	require.Equal(t, float64(int(f)), f, "score is an integer")
	require.True(t, f >= 0 && f <= 100, "score %v within 0..100", f)
}

func sheetSize(t *testing.T, c *Client, tok string) int {
	t.Helper()
	r := c.Do(t, http.MethodGet, "/api/leads/export.csv", tok, nil)
	r.Expect(t, http.StatusOK)
	records, err := csv.NewReader(bytes.NewReader(r.Raw)).ReadAll()
	require.NoError(t, err)
	return len(records) - 1
}

func TestLeadFinderReturnsSpecFieldsAndGrowsTheSheetByNewLeadsOnly(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.2.1")
	// full_stack searches without a monthly limit, so repeated runs in one month keep passing.
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))

	body := map[string]any{"industry": "plumbers", "location": "Austin, TX", "limit": 5}
	r := c.Do(t, http.MethodPost, "/api/lead-finder", tok, body)
	r.Expect(t, http.StatusOK)
	require.ElementsMatch(t, []string{"ok", "count", "leads", "resolvedLocation"}, leadKeys(r.JSON))
	require.Equal(t, "Austin, TX", r.JSON["resolvedLocation"])
	leads := r.JSON["leads"].([]any)
	require.Len(t, leads, 5, "the demo catalog has Austin plumbers")
	require.EqualValues(t, 5, r.JSON["count"])
	for _, raw := range leads {
		l := raw.(map[string]any)
		require.ElementsMatch(t, []string{"businessName", "ownerName", "email", "phone", "score", "source"}, leadKeys(l))
		require.True(t, strings.HasPrefix(l["phone"].(string), "+"), "phone %v", l["phone"])
		requireScore(t, l["score"])
		for _, k := range []string{"businessName", "ownerName", "email", "source"} {
			require.NotEmpty(t, l[k], k)
		}
	}

	before := sheetSize(t, c, tok)
	c.Do(t, http.MethodPost, "/api/lead-finder", tok, body).Expect(t, http.StatusOK)
	require.Equal(t, before, sheetSize(t, c, tok), "the same leads again add no rows")

	wider := map[string]any{"industry": "plumbers", "location": "Austin, TX", "limit": 8}
	c.Do(t, http.MethodPost, "/api/lead-finder", tok, wider).Expect(t, http.StatusOK)
	grown := sheetSize(t, c, tok)
	require.LessOrEqual(t, grown-before, 3, "only the three not seen before can be new")

	for _, loc := range []string{"Austin", "Texas", "TX", "78701", "Austin TX", "austin, tx, usa", "Austin, TX 78701"} {
		r := c.Do(t, http.MethodPost, "/api/lead-finder", tok, map[string]any{"industry": "restaurant", "location": loc})
		r.Expect(t, http.StatusOK)
		require.Positive(t, r.JSON["count"], "location %q", loc)
	}
	// Issue 26 finding 4: places as people write them, the demo catalog's coordinates.
	for loc, want := range map[string]string{"NYC": "New York, NY", "Saint Louis, MO": "Saint Louis, MO", "LA": "Los Angeles, CA"} {
		r := c.Do(t, http.MethodPost, "/api/lead-finder", tok, map[string]any{"industry": "restaurant", "location": loc})
		r.Expect(t, http.StatusOK)
		require.Equal(t, want, r.JSON["resolvedLocation"], loc)
		require.Positive(t, r.JSON["count"], "location %q", loc)
	}
	r = c.Do(t, http.MethodPost, "/api/lead-finder", tok, map[string]any{"industry": "restaurant", "location": "78701", "radiusMiles": 30})
	r.Expect(t, http.StatusOK)
	require.Positive(t, r.JSON["count"], "radius")
	require.EqualValues(t, 30, r.JSON["radiusMiles"])
}

func TestLeadFinderRejectsBadInputNamingTheField(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.2.2")
	tok := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	cases := []struct {
		body  any
		field string
	}{
		{map[string]any{"location": "Austin, TX"}, "industry"},
		{map[string]any{"industry": "plumber", "limit": 0}, "limit"},
		{map[string]any{"industry": "plumber", "limit": 51}, "limit"},
		{`{"industry":"plumber","limit":"ten"}`, "limit"},
		{map[string]any{"industry": "plumber", "location": "Atlantis, ZZ"}, "location"},
		{map[string]any{"industry": "plumber", "location": "Atlantiss"}, "location"}, // Atlantis, FL is a town
		{map[string]any{"industry": "plumber", "location": "Austin, TX", "radiusMiles": 101}, "radiusMiles"},
	}
	for _, tc := range cases {
		r := c.Do(t, http.MethodPost, "/api/lead-finder", tok, tc.body)
		r.Expect(t, http.StatusBadRequest)
		require.Equal(t, false, r.JSON["ok"])
		require.Equal(t, tc.field, r.JSON["field"], "%s", r.Raw)
		require.Contains(t, r.JSON["error"], tc.field)
	}
	for _, path := range []string{"/api/lead-finder", "/api/lead-quality-batch"} {
		r := c.Do(t, http.MethodPost, path, "", map[string]any{"industry": "plumber"})
		r.Expect(t, http.StatusUnauthorized)
		require.Equal(t, false, r.JSON["ok"])
	}
	c.Do(t, http.MethodGet, "/api/lead-qualify?email=a@b.com", "", nil).Expect(t, http.StatusUnauthorized)
	c.Do(t, http.MethodGet, "/api/leads", "", nil).Expect(t, http.StatusUnauthorized)
}

func TestLeadQualifyComputesSignals(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.2.3")
	tok := s.Token(t, s.Get(t, "DEMO_FREE_EMAIL"))

	// The first business of the demo catalog (catalog-gen -seed 42) has a website and a mailbox
	// on its domain, which the loopback DNS server answers for.
	r := c.Do(t, http.MethodGet, "/api/lead-qualify?email=melissa@familychicagowellnessspa.com&phone=%2B13127799293&businessName=Family+Chicago+Wellness+Spa", tok, nil)
	r.Expect(t, http.StatusOK)
	require.ElementsMatch(t, []string{"ok", "score", "qualified", "reasoning", "signals"}, leadKeys(r.JSON))
	requireScore(t, r.JSON["score"])
	require.Equal(t, true, r.JSON["qualified"])
	require.Subset(t, r.JSON["signals"], []any{"verified_email", "has_website", "local_business", "valid_phone"})
	require.Contains(t, r.JSON["reasoning"], "(+20)")

	r = c.Do(t, http.MethodGet, "/api/lead-qualify?email=someone@mailinator.com", tok, nil)
	r.Expect(t, http.StatusOK)
	require.Contains(t, r.JSON["signals"], "disposable_email")
	require.Equal(t, false, r.JSON["qualified"])

	r = c.Do(t, http.MethodGet, "/api/lead-qualify?email=not-an-email", tok, nil)
	r.Expect(t, http.StatusOK)
	requireScore(t, r.JSON["score"])
	require.EqualValues(t, 0, r.JSON["score"])

	r = c.Do(t, http.MethodGet, "/api/lead-qualify?businessName=Acme", tok, nil)
	r.Expect(t, http.StatusBadRequest)
	require.Equal(t, "email", r.JSON["field"])
}

func batch(n int, prefix string) map[string]any {
	leads := make([]map[string]string, n)
	for i := range leads {
		leads[i] = map[string]string{"email": fmt.Sprintf("%s%d@familychicagowellnessspa.com", prefix, i)}
	}
	return map[string]any{"leads": leads}
}

func TestLeadQualityBatch(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.2.4")
	growth := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))

	r := c.Do(t, http.MethodPost, "/api/lead-quality-batch", growth, batch(25, "g"))
	r.Expect(t, http.StatusOK)
	require.ElementsMatch(t, []string{"ok", "scored", "remaining", "unlimited", "results"}, leadKeys(r.JSON))
	require.EqualValues(t, 25, r.JSON["scored"])
	require.Nil(t, r.JSON["remaining"], "paid plans are unlimited: no number")
	require.Equal(t, true, r.JSON["unlimited"])
	results := r.JSON["results"].([]any)
	require.Len(t, results, 25)
	for _, raw := range results {
		e := raw.(map[string]any)
		require.ElementsMatch(t, []string{"email", "score", "qualified"}, leadKeys(e))
		requireScore(t, e["score"])
	}

	r = c.Do(t, http.MethodPost, "/api/lead-quality-batch", growth, batch(26, "g"))
	r.Expect(t, http.StatusBadRequest)
	require.Equal(t, "leads", r.JSON["field"])
	r = c.Do(t, http.MethodPost, "/api/lead-quality-batch", growth, map[string]any{"leads": []map[string]string{{"phone": "+15124723000"}}})
	r.Expect(t, http.StatusBadRequest)
	require.Equal(t, "leads[0].email", r.JSON["field"])

	// The free demo account's monthly allowance carries over between runs: either a score is
	// left and spending one lowers remaining by one, or the refusal names the code and upgrade URL.
	free := s.Token(t, s.Get(t, "DEMO_FREE_EMAIL"))
	prev := -1
	for range 3 {
		r := c.Do(t, http.MethodPost, "/api/lead-quality-batch", free, batch(1, "f"))
		switch r.Status {
		case http.StatusOK:
			left := int(r.JSON["remaining"].(float64))
			require.True(t, left >= 0 && left < 25)
			if prev >= 0 {
				require.Equal(t, prev-1, left)
			}
			prev = left
		case http.StatusPaymentRequired:
			require.Equal(t, "batch_allowance_exhausted", r.JSON["code"])
			require.EqualValues(t, 0, r.JSON["remaining"])
			require.NotEmpty(t, r.JSON["upgradeUrl"])
			prev = 0
		default:
			t.Fatalf("unexpected %d: %s", r.Status, r.Raw)
		}
	}
}

func TestScoutStatsIsPublicAndCached(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.2.5")
	r := c.Do(t, http.MethodGet, "/api/scout-stats", "", nil)
	r.Expect(t, http.StatusOK)
	require.ElementsMatch(t, []string{"total", "noWebsite", "avgGapScore", "byVertical", "topCities", "topStates", "last7Days", "dateRange", "updatedAt"}, leadKeys(r.JSON))
	require.GreaterOrEqual(t, r.JSON["total"], float64(20000))
	require.Equal(t, "public, max-age=21600", r.Header.Get("Cache-Control"))
	etag := r.Header.Get("ETag")
	require.NotEmpty(t, etag)
	for _, city := range r.JSON["topCities"].([]any) {
		require.ElementsMatch(t, []string{"city", "count"}, leadKeys(city.(map[string]any)))
	}
	require.Equal(t, "30", r.Header.Get("X-RateLimit-Limit"))

	again := c.Do(t, http.MethodGet, "/api/scout-stats", "", nil, http.Header{"If-None-Match": {etag}})
	again.Expect(t, http.StatusNotModified)
}
