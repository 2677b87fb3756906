package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/analytics/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

// The facts count whole UTC days, each window ending with the instant's day: rows on the first
// day of a window count, rows the day before it or after today do not.
func TestFactsCountTheWholeUTCDaysOfEachWindow(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC) // Window from 9 Feb, prior trend 11-24 Feb, chat and recent trend from 25 Feb
	lastLogin := time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)
	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := pool.Exec(ctx, sql, args...)
		require.NoError(t, err)
	}
	exec(`INSERT INTO accounts (account_id, email, business_name, plan, created_at, last_login_at)
		VALUES ('acc_f', 'f@x.test', 'F Co', 'growth', '2025-03-10T00:00:00Z', $1)`, lastLogin)
	for _, u := range []struct {
		day     string
		feature string
		uses    int
	}{
		{"2026-02-08", "chat", 1},          // before every window
		{"2026-02-09", "chat", 2},          // first day of Window
		{"2026-02-11", "lead_finder", 4},   // first day of the prior trend window
		{"2026-02-24", "audit_tool", 8},    // last day of the prior trend window
		{"2026-02-25", "chat", 16},         // first day of the chat and recent trend windows
		{"2026-03-10", "lead_scoring", 32}, // today
		{"2026-03-11", "chat", 64},         // after today
	} {
		lane := 0 // log-usage's lanes; metered features count only as reserved (lane -2)
		if u.feature != "audit_tool" {
			lane = -2
		}
		exec(`INSERT INTO usage_daily (account_id, day, feature, uses, lane) VALUES ('acc_f', $1, $2, $3, $4)`, u.day, u.feature, u.uses, lane)
		if u.feature == "chat" { // the same chats logged by the client too: kept, not counted again
			exec(`INSERT INTO usage_daily (account_id, day, feature, uses, lane) VALUES ('acc_f', $1, $2, $3, 0)`, u.day, u.feature, u.uses)
		}
	}
	for _, a := range []struct {
		day  string
		kind string
		n    int
	}{
		{"2026-02-08", "login", 1}, {"2026-02-09", "login", 1}, {"2026-03-10", "login", 1}, {"2026-03-11", "login", 1},
		{"2026-02-08", "lead", 100}, {"2026-02-09", "lead", 2}, {"2026-03-10", "lead", 3}, {"2026-03-11", "lead", 100},
		{"2026-02-08", "inbound", 100}, {"2026-03-01", "inbound", 5},
	} {
		exec(`INSERT INTO activity_daily (account_id, day, kind, n) VALUES ('acc_f', $1, $2, $3)`, a.day, a.kind, a.n)
	}

	var got []app.AccountFacts
	require.NoError(t, postgres.NewHealth(pool).Update(ctx, []string{"acc_f", "acc_unknown"}, now,
		func(_ context.Context, f []app.AccountFacts) ([]app.ScoreUpdate, error) { got = f; return nil, nil }))
	require.Len(t, got, 1, "only accounts that exist")
	f := got[0].Facts
	require.Equal(t, lastLogin, f.LastLoginAt.UTC())
	require.Equal(t, 4, f.FeaturesUsed, "chat, lead_finder, audit_tool and lead_scoring in Window")
	require.Equal(t, 16, f.ChatUses)
	require.Equal(t, 16+16+32, f.UsageRecent, "activity counts every use")
	require.Equal(t, 4+8, f.UsagePrior)
	require.Equal(t, []health.Metered{{Used: 2 + 16, Limit: 1000}, {Used: 32, Limit: -1}, {Used: 4, Limit: 300}}, f.Metered,
		"chat, lead_scoring and lead_finder in Window against the growth limits")
	require.Equal(t, 2, f.LoginDays)
	require.Equal(t, 2+3, f.LeadsWritten)
	require.Equal(t, 5, f.InboundEvents)
	require.Equal(t, health.Tier(""), got[0].PreviousTier)
}
