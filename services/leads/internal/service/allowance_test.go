package service_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/allowance/allowancetest"
	"github.com/bizassist/bizassist/libs/ids"
)

// doInternal sends a request to an /internal route and checks the answer against the contract of
// the /api route it shares its handler with.
func (h *harness) doInternal(method, path, token string, body string) response {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.base+path, rd)
	require.NoError(h.t, err)
	req.Header.Set("X-Forwarded-For", h.ip)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	public := req.Clone(req.Context())
	public.URL.Path = strings.Replace(req.URL.Path, "/internal/", "/api/", 1)
	public.URL.RawQuery = req.URL.RawQuery
	h.spec.Check(h.t, public, resp, raw)
	r := response{status: resp.StatusCode, header: resp.Header, body: raw}
	r.json = map[string]any{}
	require.NoError(h.t, json.Unmarshal(raw, &r.json), string(raw))
	return r
}

func TestLeadFinderStopsAtTheMonthlyLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.20")
	account, free := h.newAccount("free")

	for i := range 20 {
		r := h.do("POST", "/api/lead-finder", free, map[string]any{"industry": "plumbers", "location": "Austin, TX"})
		require.Equal(t, 200, r.status, "search %d: %s", i+1, r.body)
	}

	// The 21st is refused, and so is one the assistant makes for the caller (the /internal route).
	for _, path := range []string{"/api/lead-finder", "/internal/lead-finder"} {
		r := h.doInternal("POST", path, free, `{"industry":"dentist"}`)
		h.requireError(r, 402, "lead_finder_limit_reached", "")
		require.Equal(t, allowancetest.UpgradeURL, r.json["upgradeUrl"])
		require.EqualValues(t, 0, r.json["remaining"])
		require.EqualValues(t, 20, r.json["limit"])
	}
	sheet := h.do("GET", "/api/leads?limit=100", free, nil)
	require.EqualValues(t, 4, sheet.json["count"], "the refused dentist search added nothing")
	require.Zero(t, h.outbox("usage.recorded"), "the reservation is the usage record")
	require.Equal(t, 20, h.analytics.Used(account, "lead_finder"))
}

func TestAllowanceFailsClosed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.21")
	tok := h.token("growth")
	search := map[string]any{"industry": "plumbers", "location": "Austin, TX"}
	fresh := func(prefix string) map[string]any {
		return batchOf(3, func(i int) string { return fmt.Sprintf("x@%s%d-closed.com", prefix, i) })
	}

	// A 429 (say, of a rate limit analytics applies) or a 500 is no allowance, not a free pass.
	for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError} {
		h.analytics.FailWith(status)
		h.requireError(h.do("POST", "/api/lead-finder", tok, search), 503, "allowance_unavailable", "")
		h.requireError(h.do("POST", "/api/lead-quality-batch", tok, fresh(fmt.Sprint(status))), 503, "allowance_unavailable", "")
	}
	h.analytics.Stop()
	h.requireError(h.do("POST", "/api/lead-finder", tok, search), 503, "allowance_unavailable", "")
	h.requireError(h.do("POST", "/api/lead-quality-batch", tok, fresh("down")), 503, "allowance_unavailable", "")

	require.EqualValues(t, 0, h.do("GET", "/api/leads", tok, nil).json["count"], "no search ran")
	require.Zero(t, h.outbox("lead.written"))
	require.Zero(t, h.dns.Lookups(), "no lead was scored")
}

func TestBatchOverTheAllowanceIsRefusedBeforeAnyDNSQuery(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.22")
	account, free := h.newAccount("free")

	r := h.do("POST", "/api/lead-quality-batch", free, batchOf(20, func(i int) string { return fmt.Sprintf("a@first%d.com", i) }))
	require.Equal(t, 200, r.status, string(r.body))
	require.EqualValues(t, 5, r.json["remaining"])
	require.Equal(t, false, r.json["unlimited"])
	asked := h.dns.Lookups()
	require.Positive(t, asked, "scoring asks DNS")

	r = h.do("POST", "/api/lead-quality-batch", free, batchOf(6, func(i int) string { return fmt.Sprintf("b@second%d.com", i) }))
	h.requireError(r, 402, "batch_allowance_exhausted", "")
	require.EqualValues(t, 5, r.json["remaining"])
	require.EqualValues(t, 25, r.json["limit"])
	require.Equal(t, allowancetest.UpgradeURL, r.json["upgradeUrl"])
	require.Equal(t, asked, h.dns.Lookups(), "a refused batch asks DNS nothing")
	require.Equal(t, 20, h.analytics.Used(account, "lead_scoring"))
}

func TestUnlimitedBatchAllowanceHasNoNumber(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.23")
	r := h.do("POST", "/api/lead-quality-batch", h.token("growth"), batchOf(25, func(i int) string { return fmt.Sprintf("u%d@acme.com", i) }))
	require.Equal(t, 200, r.status, string(r.body))
	require.Contains(t, r.json, "remaining")
	require.Nil(t, r.json["remaining"], "unlimited is null, not a magic number")
	require.Equal(t, true, r.json["unlimited"])
}

func TestThePlanIsAnalyticsNotTheTokens(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.24")
	batch := batchOf(20, func(i int) string { return fmt.Sprintf("p%d@acme.com", i) })

	// Upgraded since the token was issued: no cap.
	upgraded := ids.New("acc")
	h.analytics.SetPlan(upgraded, "growth")
	tok := h.tokenFor(upgraded, "free")
	for range 2 {
		r := h.do("POST", "/api/lead-quality-batch", tok, batch)
		require.Equal(t, 200, r.status, string(r.body))
		require.Equal(t, true, r.json["unlimited"])
	}

	// Downgraded since: the free cap holds at once.
	downgraded := ids.New("acc")
	h.analytics.SetPlan(downgraded, "free")
	tok = h.tokenFor(downgraded, "growth")
	require.Equal(t, 200, h.do("POST", "/api/lead-quality-batch", tok, batch).status)
	h.requireError(h.do("POST", "/api/lead-quality-batch", tok, batch), 402, "batch_allowance_exhausted", "")
}

func TestQualifyIsNotMetered(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.25")
	r := h.do("GET", "/api/lead-qualify?email=ann@acmeplumbing.com", h.token("free"), nil)
	require.Equal(t, 200, r.status)
	require.Zero(t, h.analytics.Reserves(), "lead-qualify never counted as lead_scoring")
}

func TestInternalRoutesAreNotChargedToTheCallersIP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "198.51.100.26")
	account, tok := h.newAccount("growth")

	limited := false
	for range 200 {
		if r := h.do("GET", "/api/leads", tok, nil); r.status == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	require.True(t, limited, "the caller's IP bucket is exhausted on /api")

	r := h.doInternal("GET", "/internal/leads", tok, "")
	require.Equal(t, 200, r.status, string(r.body))
	require.Empty(t, r.header.Get("X-RateLimit-Limit"), "no per-IP policy on /internal")
	r = h.doInternal("POST", "/internal/lead-finder", tok, `{"industry":"plumbers","location":"Austin, TX"}`)
	require.Equal(t, 200, r.status, string(r.body))
	require.EqualValues(t, 4, r.json["count"])
	require.Equal(t, 1, h.analytics.Used(account, "lead_finder"), "the assistant's searches count as the caller's")
	r = h.doInternal("GET", "/internal/lead-qualify?email=owner@first0.com&businessName=First", tok, "")
	require.Equal(t, 200, r.status, string(r.body))
	require.Contains(t, r.json, "score")
	r = h.doInternal("POST", "/internal/lead-quality-batch", tok, `{"leads":[{"email":"owner@first0.com"},{"email":"owner@first1.com"}]}`)
	require.Equal(t, 200, r.status, string(r.body))
	require.EqualValues(t, 2, r.json["scored"])
	require.Equal(t, 2, h.analytics.Used(account, "lead_scoring"), "and so do its batches")

	h.requireError(h.doInternal("GET", "/internal/leads", "", ""), 401, "unauthenticated", "")
	require.Equal(t, 429, h.do("GET", "/api/leads", tok, nil).status, "the /api route is still limited")
}
