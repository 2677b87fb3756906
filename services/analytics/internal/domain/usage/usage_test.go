package usage_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

var now = time.Date(2026, 2, 28, 23, 59, 59, 987654321, time.UTC)

// metaOf returns a JSON object whose compact encoding is exactly n bytes.
func metaOf(n int) json.RawMessage {
	const frame = len(`{"k":""}`)
	return json.RawMessage(`{"k":"` + strings.Repeat("x", n-frame) + `"}`)
}

func TestNewEventAcceptsAValidEvent(t *testing.T) {
	t.Parallel()
	e, err := usage.NewEvent("acc_1", "lead_finder", "export_csv", json.RawMessage(` { "rows" : 12 } `), now)
	require.NoError(t, err)
	require.True(t, ids.Valid("evt", e.ID()))
	require.Equal(t, "lead_finder", e.Feature())
	require.Equal(t, "export_csv", e.Action())
	require.Equal(t, 1, e.Count())
	require.JSONEq(t, `{"rows":12}`, string(e.Meta()))
	require.Equal(t, `{"rows":12}`, string(e.Meta()), "meta is stored compact")
	require.Equal(t, now.Truncate(time.Millisecond), e.At())

	// Stored as valid UTF-8: a lone surrogate escape is replaced, an escaped backslash is not a NUL.
	e, err = usage.NewEvent("acc_1", "chat", "", json.RawMessage(`{"s":"\ud800","b":"\\u0000","n":1.50,"h":"<a&b>"}`), now)
	require.NoError(t, err)
	require.Equal(t, `{"b":"\\u0000","h":"<a&b>","n":1.50,"s":"`+"\uFFFD"+`"}`, string(e.Meta()))

	e, err = usage.NewEvent("acc_1", "chat", "", json.RawMessage(`null`), now)
	require.NoError(t, err)
	require.Nil(t, e.Meta())

	_, err = usage.NewEvent("acc_1", "audit_tool", "", metaOf(usage.MaxMetaBytes), now)
	require.NoError(t, err, "2,048 bytes pass")
}

func TestNewEventRejectsBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, feature, action string
		meta                  json.RawMessage
		field, code           string
	}{
		{"missing feature", "", "", nil, "feature", apperr.CodeMissingField},
		{"feature with capitals", "LeadFinder", "", nil, "feature", apperr.CodeInvalidField},
		{"feature too short", "x", "", nil, "feature", apperr.CodeInvalidField},
		{"feature too long", strings.Repeat("a", 49), "", nil, "feature", apperr.CodeInvalidField},
		{"action with spaces", "chat", "send message", nil, "action", apperr.CodeInvalidField},
		{"meta one byte over", "chat", "", metaOf(usage.MaxMetaBytes + 1), "meta", apperr.CodeInvalidField},
		{"meta an array", "chat", "", json.RawMessage(`[1]`), "meta", apperr.CodeInvalidField},
		{"meta a string", "chat", "", json.RawMessage(`"x"`), "meta", apperr.CodeInvalidField},
		{"meta with a NUL", "chat", "", json.RawMessage(`{"a":"x\u0000y"}`), "meta", apperr.CodeInvalidField},
		{"meta key with a NUL", "chat", "", json.RawMessage(`{"a":{"\u0000":1}}`), "meta", apperr.CodeInvalidField},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := usage.NewEvent("acc_1", tc.feature, tc.action, tc.meta, now)
			var e *apperr.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, tc.field, e.Field)
			require.Equal(t, tc.code, e.Code)
		})
	}
}

func TestAllowanceAndStatus(t *testing.T) {
	t.Parallel()
	require.Equal(t, usage.Allowance{Used: 79, Limit: 100, Pct: 79}, usage.NewAllowance(79, 100))
	require.Equal(t, usage.Allowance{Used: 12, Limit: 7, Pct: 171}, usage.NewAllowance(12, 7))
	require.Equal(t, usage.Allowance{Used: 5000, Limit: usage.Unlimited}, usage.NewAllowance(5000, usage.Unlimited))
	require.Equal(t, 100, usage.NewAllowance(1, 0).Pct)

	s := usage.NewStatus(map[usage.Feature]usage.Allowance{
		usage.Chat:        usage.NewAllowance(79, 100),
		usage.LeadScoring: usage.NewAllowance(9000, usage.Unlimited),
		usage.LeadFinder:  usage.NewAllowance(3, 50),
	})
	require.Equal(t, 79, s.UsagePercent)
	require.False(t, s.NearLimit)

	s = usage.NewStatus(map[usage.Feature]usage.Allowance{usage.Chat: usage.NewAllowance(80, 100)})
	require.Equal(t, 80, s.UsagePercent)
	require.True(t, s.NearLimit)

	s = usage.NewStatus(map[usage.Feature]usage.Allowance{usage.Chat: usage.NewAllowance(80, usage.Unlimited)})
	require.Zero(t, s.UsagePercent)
	require.False(t, s.NearLimit)
}

func TestParseFeature(t *testing.T) {
	t.Parallel()
	f, err := usage.ParseFeature("lead_scoring")
	require.NoError(t, err)
	require.Equal(t, usage.LeadScoring, f)
	_, err = usage.ParseFeature("audit_tool")
	var e *apperr.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "feature", e.Field)
}

func TestMonthOfIsTheUTCCalendarMonth(t *testing.T) {
	t.Parallel()
	start, end := usage.MonthOf(now)
	require.Equal(t, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), start)
	require.Equal(t, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), end)
	start, _ = usage.MonthOf(time.Date(2026, 3, 1, 0, 30, 0, 0, time.FixedZone("UTC+1", 3600)))
	require.Equal(t, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), start, "the instant is in February in UTC")
}

func TestAnAllowanceAdmitsAllOrNothing(t *testing.T) {
	t.Parallel()
	a := usage.NewAllowance(22, 25)
	require.True(t, a.Admits(3))
	require.False(t, a.Admits(4), "a reservation larger than what is left is refused whole")
	require.Equal(t, 3, a.Remaining())
	require.False(t, a.IsUnlimited())

	over := usage.NewAllowance(30, 25) // other services' reports may pass the limit
	require.Equal(t, 0, over.Remaining())
	require.False(t, over.Admits(1))

	u := usage.NewAllowance(1_000_000, usage.Unlimited)
	require.True(t, u.IsUnlimited())
	require.True(t, u.Admits(usage.MaxReserveCount))
	require.Equal(t, usage.Unlimited, u.Remaining(), "unlimited is -1 everywhere")
}

func TestLimitOfAFeatureWithoutARowIsZero(t *testing.T) {
	t.Parallel()
	limits := map[usage.Feature]int{usage.Chat: usage.Unlimited, usage.LeadFinder: 20}
	require.Equal(t, usage.Unlimited, usage.LimitOf(limits, usage.Chat))
	require.Equal(t, 20, usage.LimitOf(limits, usage.LeadFinder))
	require.Equal(t, 0, usage.LimitOf(limits, usage.LeadScoring), "no row is not unlimited")
	require.Equal(t, 0, usage.LimitOf(nil, usage.Chat), "an unknown plan gives nothing away")
}

func TestNewReservation(t *testing.T) {
	t.Parallel()
	e, err := usage.NewReservation("acc_1", "lead_scoring", 25, "batch", now)
	require.NoError(t, err)
	require.True(t, ids.Valid("evt", e.ID()))
	require.Equal(t, []any{"acc_1", "lead_scoring", "batch", 25, now.Truncate(time.Millisecond)},
		[]any{e.AccountID(), e.Feature(), e.Action(), e.Count(), e.At()})

	for _, tc := range []struct {
		feature, action string
		count           int
		field, code     string
	}{
		{"", "", 1, "feature", apperr.CodeMissingField},
		{"audit_tool", "", 1, "feature", apperr.CodeInvalidField},
		{"chat", "", 0, "count", apperr.CodeInvalidField},
		{"chat", "", usage.MaxReserveCount + 1, "count", apperr.CodeInvalidField},
		{"chat", "Send", 1, "action", apperr.CodeInvalidField},
	} {
		_, err := usage.NewReservation("acc_1", tc.feature, tc.count, tc.action, now)
		var e *apperr.Error
		require.ErrorAs(t, err, &e, tc)
		require.Equal(t, tc.field, e.Field, tc)
		require.Equal(t, tc.code, e.Code, tc)
	}
}

// The bound is on what is stored: an escaped "\u00e9" weighs what a raw "é" does (two bytes),
// not the six characters of its escape.
func TestMetaSizeCountsEscapesAsTheCharactersTheyStandFor(t *testing.T) {
	t.Parallel()
	const frame = len(`{"k":""}`)
	chars := (usage.MaxMetaBytes - frame) / 2
	raw := json.RawMessage(`{"k":"` + strings.Repeat("é", chars) + `"}`)
	escaped := json.RawMessage(`{"k":"` + strings.Repeat(`\u00e9`, chars) + `"}`)
	for name, meta := range map[string]json.RawMessage{"raw": raw, "escaped": escaped} {
		e, err := usage.NewEvent("acc_1", "chat", "", meta, now)
		require.NoError(t, err, name)
		require.Equal(t, string(raw), string(e.Meta()), name)
	}
	over := json.RawMessage(`{"k":"` + strings.Repeat(`\u00e9`, chars+1) + `"}`)
	_, err := usage.NewEvent("acc_1", "chat", "", over, now)
	var e *apperr.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "meta", e.Field)
}
