package service_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// reserve asks for count uses of feature the way leads and the assistant do: /internal, the
// caller's token, no forwarded address.
func (s *stack) reserve(t *testing.T, token, feature string, count int) reply {
	t.Helper()
	return s.do(t, "POST", "/internal/usage/reserve", "", token, fmt.Sprintf(`{"feature":%q,"count":%d,"action":"test"}`, feature, count))
}

func (s *stack) release(t *testing.T, token, id string) reply {
	t.Helper()
	return s.do(t, "POST", "/internal/usage/release", "", token, fmt.Sprintf(`{"reservationId":%q}`, id))
}

// used is the feature's use this month as pql-check reports it.
func (s *stack) used(t *testing.T, token, feature string) float64 {
	t.Helper()
	r := s.do(t, "GET", "/internal/pql-check?feature="+feature, "", token, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	return r.body["features"].(map[string]any)[feature].(map[string]any)["used"].(float64)
}

func (s *stack) events(t *testing.T, account string) int {
	t.Helper()
	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM usage_events WHERE account_id = $1`, account).Scan(&n))
	return n
}

// waitForPlan waits until the projection has consumed a plan change.
func (s *stack) waitForPlan(t *testing.T, account, plan string) {
	t.Helper()
	require.Eventually(t, func() bool {
		var got string
		err := s.svc.Runtime.Pool.QueryRow(context.Background(), `SELECT plan FROM accounts WHERE account_id = $1`, account).Scan(&got)
		return err == nil && got == plan
	}, 20*time.Second, 20*time.Millisecond, "account.plan_changed reaches the projection")
}

// The cannot-overshoot proof: free lead_finder allows 20 a month, and 40 reservations racing for
// them admit exactly 20.
func TestConcurrentReservationsNeverPassTheLimit(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_race", "free")
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		ids      = map[string]bool{}
	)
	concurrently(40, func() {
		r := s.reserve(t, tok, "lead_finder", 1)
		mu.Lock()
		defer mu.Unlock()
		statuses[r.status]++
		if r.status == http.StatusOK {
			ids[r.body["reservationId"].(string)] = true
		}
	})
	require.Equal(t, map[int]int{http.StatusOK: 20, http.StatusPaymentRequired: 20}, statuses)
	require.Len(t, ids, 20, "every admitted reservation has its own id")
	require.Equal(t, 20, s.events(t, "acc_race"))
	require.Equal(t, 20.0, s.used(t, tok, "lead_finder"), "pql-check counts reservations at once")
}

func TestAReservationAnswersWithTheAllowanceAfterIt(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_res", "free")
	r := s.reserve(t, tok, "chat", 3)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.ElementsMatch(t, []string{"ok", "reservationId", "feature", "used", "limit", "remaining", "unlimited"}, keys(r.body))
	require.Regexp(t, `^evt_[0-9A-HJKMNP-TV-Z]{26}$`, r.body["reservationId"])
	require.Equal(t, map[string]any{"ok": true, "reservationId": r.body["reservationId"], "feature": "chat",
		"used": 3.0, "limit": 50.0, "remaining": 47.0, "unlimited": false}, r.body)

	var feature, action, source string
	var uses int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT feature, action, uses, source FROM usage_events WHERE event_id = $1 AND account_id = 'acc_res'`,
		r.body["reservationId"]).Scan(&feature, &action, &uses, &source))
	require.Equal(t, []any{"chat", "test", 3}, []any{feature, action, uses})

	full := s.token(t, "acc_res_full", "full_stack")
	for i := 1; i <= 2; i++ {
		r = s.reserve(t, full, "chat", 1)
		require.Equal(t, http.StatusOK, r.status, r.body)
		require.Equal(t, []any{float64(i), nil, nil, true}, []any{r.body["used"], r.body["limit"], r.body["remaining"], r.body["unlimited"]})
	}
}

func TestARefusedReservationNamesTheAllowanceAndRecordsNothing(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_full402", "free")
	require.Equal(t, http.StatusOK, s.reserve(t, tok, "lead_scoring", 22).status) // free: 25

	for _, count := range []int{4, 25} { // more than the 3 left: all or nothing
		r := s.reserve(t, tok, "lead_scoring", count)
		require.Equal(t, http.StatusPaymentRequired, r.status, r.body)
		require.ElementsMatch(t, []string{"ok", "code", "error", "feature", "used", "limit", "remaining", "upgradeUrl"}, keys(r.body))
		require.Equal(t, false, r.body["ok"])
		require.Equal(t, "lead_scoring_limit_reached", r.body["code"])
		require.NotEmpty(t, r.body["error"])
		require.Equal(t, "lead_scoring", r.body["feature"])
		require.Equal(t, []any{22.0, 25.0, 3.0}, []any{r.body["used"], r.body["limit"], r.body["remaining"]})
		require.Equal(t, "https://bizassist.test/pricing", r.body["upgradeUrl"])
	}
	require.Equal(t, http.StatusOK, s.reserve(t, tok, "lead_scoring", 3).status, "exactly what is left fits")
	r := s.reserve(t, tok, "lead_scoring", 1)
	require.Equal(t, "lead_scoring_limit_reached", r.body["code"])
	require.Equal(t, 0.0, r.body["remaining"])
	require.Equal(t, 2, s.events(t, "acc_full402"), "refusals store nothing")
	require.Equal(t, 25.0, s.used(t, tok, "lead_scoring"))

	for _, feature := range []string{"chat", "lead_finder"} {
		limit := map[string]int{"chat": 50, "lead_finder": 20}[feature]
		require.Equal(t, http.StatusOK, s.reserve(t, tok, feature, limit).status)
		r := s.reserve(t, tok, feature, 1)
		require.Equal(t, http.StatusPaymentRequired, r.status)
		require.Equal(t, feature+"_limit_reached", r.body["code"])
	}
}

func TestAPlanChangeMovesTheNextReservationWithoutANewToken(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_moves", "free") // the token keeps saying free throughout
	require.Equal(t, http.StatusOK, s.reserve(t, tok, "lead_finder", 20).status)
	require.Equal(t, http.StatusPaymentRequired, s.reserve(t, tok, "lead_finder", 1).status)

	publish(t, s, "account.plan_changed", "acc_moves", map[string]any{"accountId": "acc_moves", "plan": "growth", "at": time.Now().UTC()})
	s.waitForPlan(t, "acc_moves", "growth")
	r := s.reserve(t, tok, "lead_finder", 1)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, []any{21.0, 300.0, 279.0}, []any{r.body["used"], r.body["limit"], r.body["remaining"]})

	// A downgrade bites as fast, even for a token that claims the richer plan.
	rich := s.token(t, "acc_moves", "full_stack")
	publish(t, s, "account.plan_changed", "acc_moves", map[string]any{"accountId": "acc_moves", "plan": "free", "at": time.Now().UTC()})
	s.waitForPlan(t, "acc_moves", "free")
	r = s.reserve(t, rich, "lead_finder", 1)
	require.Equal(t, http.StatusPaymentRequired, r.status, r.body)
	require.Equal(t, 20.0, r.body["limit"])
}

func TestReleaseGivesTheAllowanceBackOnce(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_rel", "free")
	require.Equal(t, http.StatusOK, s.reserve(t, tok, "lead_finder", 19).status)
	last := s.reserve(t, tok, "lead_finder", 1)
	require.Equal(t, http.StatusOK, last.status)
	require.Equal(t, http.StatusPaymentRequired, s.reserve(t, tok, "lead_finder", 1).status)

	id := last.body["reservationId"].(string)
	r := s.release(t, tok, id)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, map[string]any{"ok": true, "released": true}, r.body)
	require.Equal(t, 19.0, s.used(t, tok, "lead_finder"))
	require.Equal(t, map[string]any{"ok": true, "released": false}, s.release(t, tok, id).body, "a second release is a no-op")
	require.Equal(t, 19.0, s.used(t, tok, "lead_finder"))

	again := s.reserve(t, tok, "lead_finder", 1)
	require.Equal(t, http.StatusOK, again.status, again.body)
	require.Equal(t, 0.0, again.body["remaining"])
	require.Equal(t, map[string]any{"ok": true, "released": false}, s.release(t, tok, "evt_01J00000000000000000000000").body)
}

func TestReleaseOfAnotherAccountsReservationDoesNothing(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	owner, other := s.token(t, "acc_mine", "free"), s.token(t, "acc_thief", "free")
	r := s.reserve(t, owner, "chat", 5)
	require.Equal(t, http.StatusOK, r.status)
	id := r.body["reservationId"].(string)

	require.Equal(t, map[string]any{"ok": true, "released": false}, s.release(t, other, id).body)
	require.Equal(t, 5.0, s.used(t, owner, "chat"))
	require.Equal(t, 1, s.events(t, "acc_mine"))
	require.Equal(t, map[string]any{"ok": true, "released": true}, s.release(t, owner, id).body)
}

// A reservation is the usage record: a producer that still reports it as usage.recorded, with
// the same id or another, does not count it twice (a metered feature counts as it reserved).
func TestUsageRecordedForAReservationIsNotCountedTwice(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_twice", "growth")
	r := s.reserve(t, tok, "chat", 2)
	require.Equal(t, http.StatusOK, r.status)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	publish(t, s, "usage.recorded", "acc_twice", map[string]any{"eventId": r.body["reservationId"], "feature": "chat", "count": 2, "at": now})
	publish(t, s, "usage.recorded", "acc_twice", map[string]any{"eventId": "evt_marker_after_the_repeat", "feature": "chat", "count": 1, "at": now})
	require.Eventually(t, func() bool { return s.events(t, "acc_twice") == 2 }, 20*time.Second, 20*time.Millisecond,
		"the marker published after the repeat is consumed")
	require.Equal(t, 2.0, s.used(t, tok, "chat"))
}

func TestReservationInputIsChecked(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_resbad", "free")
	cases := []struct {
		name, path, body string
		status           int
		code, field      string
	}{
		{"unmetered feature", "/internal/usage/reserve", `{"feature":"audit_tool","count":1}`, 400, "invalid_field", "feature"},
		{"missing feature", "/internal/usage/reserve", `{"count":1}`, 400, "missing_field", "feature"},
		{"count 0", "/internal/usage/reserve", `{"feature":"chat","count":0}`, 400, "invalid_field", "count"},
		{"count 1001", "/internal/usage/reserve", `{"feature":"chat","count":1001}`, 400, "invalid_field", "count"},
		{"count not an integer", "/internal/usage/reserve", `{"feature":"chat","count":1.5}`, 400, "invalid_type", "count"},
		{"bad action", "/internal/usage/reserve", `{"feature":"chat","count":1,"action":"Send Message"}`, 400, "invalid_field", "action"},
		{"unknown field", "/internal/usage/reserve", `{"feature":"chat","count":1,"meta":{}}`, 400, "unknown_field", "meta"},
		{"missing id", "/internal/usage/release", `{}`, 400, "missing_field", "reservationId"},
	}
	for _, tc := range cases {
		r := s.do(t, "POST", tc.path, "", tok, tc.body)
		require.Equal(t, tc.status, r.status, tc.name)
		require.Equal(t, tc.code, r.body["code"], tc.name)
		require.Equal(t, tc.field, r.body["field"], tc.name)
	}
	require.Equal(t, 0, s.events(t, "acc_resbad"))
	r := s.do(t, "POST", "/internal/usage/reserve", "", "", `{"feature":"chat"}`)
	require.Equal(t, http.StatusUnauthorized, r.status)
	r = s.do(t, "POST", "/internal/usage/reserve", "", tok, `{"feature":"chat"}`)
	require.Equal(t, http.StatusOK, r.status, "count defaults to 1")
	require.Equal(t, 1.0, r.body["used"])
}

// /internal is what services call on behalf of a user: the user's own IP bucket, which their
// public calls may have spent, is not charged or consulted there.
func TestInternalRoutesAreNotChargedToTheCallersIPBucket(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_bucket", "growth")
	const ip = "10.0.9.9"
	limited := false
	for i := 0; i < 200 && !limited; i++ {
		limited = s.do(t, "GET", "/api/pql-check", ip, tok, "").status == http.StatusTooManyRequests
	}
	require.True(t, limited, "the caller's bucket is spent")
	require.Equal(t, http.StatusTooManyRequests, s.do(t, "GET", "/api/pql-check", ip, tok, "").status)

	for _, path := range []string{"/internal/pql-check", "/internal/health-score", "/internal/churn-predict"} {
		r := s.do(t, "GET", path, ip, tok, "")
		require.Equal(t, http.StatusOK, r.status, "%s %v", path, r.body)
		require.Empty(t, r.header.Get("X-RateLimit-Remaining"), path)
	}
	r := s.do(t, "POST", "/internal/usage/reserve", ip, tok, `{"feature":"chat","count":1}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, http.StatusOK, s.release(t, tok, r.body["reservationId"].(string)).status)
}

// churn-predict's plan gate follows the projection, not the plan a token was minted with.
func TestChurnPredictGateReadsTheProjectedPlan(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	publish(t, s, "account.plan_changed", "acc_upgraded", map[string]any{"accountId": "acc_upgraded", "plan": "growth", "at": time.Now().UTC()})
	publish(t, s, "account.plan_changed", "acc_downgraded", map[string]any{"accountId": "acc_downgraded", "plan": "free", "at": time.Now().UTC()})
	s.waitForPlan(t, "acc_upgraded", "growth")
	s.waitForPlan(t, "acc_downgraded", "free")

	for _, prefix := range []string{"/api", "/internal"} {
		r := s.do(t, "GET", prefix+"/churn-predict", bulkIP, s.token(t, "acc_upgraded", "free"), "")
		require.Equal(t, http.StatusOK, r.status, r.body)
		r = s.do(t, "GET", prefix+"/churn-predict", bulkIP, s.token(t, "acc_downgraded", "growth"), "")
		require.Equal(t, http.StatusForbidden, r.status, r.body)
		require.Equal(t, "plan_upgrade_required", r.body["code"])
	}
}

// A row that a login or payment event made before account.created arrived knows no plan: the
// token's plan applies until an event says which plan the account has, not a default free.
func TestAnAccountSeenOnlyThroughLoginsUsesTheTokensPlan(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.consumed(t, publish(t, s, "account.login", "acc_early", map[string]any{"accountId": "acc_early", "email": "e@x.test", "at": time.Now().UTC()}))
	s.consumed(t, publish(t, s, "payment.invoice.paid", "acc_early", map[string]any{"type": "invoice.paid", "accountId": "acc_early"}))

	r := s.reserve(t, s.token(t, "acc_early", "growth"), "lead_finder", 1)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, 300.0, r.body["limit"], "growth's limit, from the token")
	r = s.do(t, "GET", "/internal/churn-predict", "", s.token(t, "acc_early", "growth"), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
}

// Events are delivered at least once and in no particular order: a plan change that arrives
// before the account.created it follows keeps its plan.
func TestALatePlanEventDoesNotUndoANewerOne(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	created := time.Now().UTC().Add(-time.Hour)
	publish(t, s, "account.plan_changed", "acc_order", map[string]any{"accountId": "acc_order", "plan": "growth",
		"previousPlan": "free", "at": created.Add(time.Minute)})
	s.waitForPlan(t, "acc_order", "growth")
	s.consumed(t, publish(t, s, "account.created", "acc_order", map[string]any{"accountId": "acc_order", "email": "o@x.test",
		"plan": "free", "role": "owner", "businessName": "Order Co", "createdAt": created}))

	r := s.reserve(t, s.token(t, "acc_order", "free"), "lead_finder", 1)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, 300.0, r.body["limit"], "the newer plan_changed still holds")

	// An older plan change redelivered late changes nothing either.
	s.consumed(t, publish(t, s, "account.plan_changed", "acc_order", map[string]any{"accountId": "acc_order", "plan": "full_stack",
		"previousPlan": "free", "at": created.Add(30 * time.Second)}))
	require.Equal(t, 300.0, s.reserve(t, s.token(t, "acc_order", "free"), "lead_finder", 1).body["limit"])
}
