package dashboard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
)

func TestMetersSayTheirStateInWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		m           dashboard.Meter
		level, says string
	}{
		{dashboard.Meter{Feature: "chat", Used: 10, Limit: 50, Pct: 20}, "ok", "10 of 50 used (20%)"},
		{dashboard.Meter{Feature: "chat", Used: 40, Limit: 50, Pct: 80}, "near", "near the limit"},
		{dashboard.Meter{Feature: "chat", Used: 50, Limit: 50, Pct: 100}, "over", "limit reached"},
		{dashboard.Meter{Feature: "chat", Used: 9, Limit: -1, Unlimited: true}, "ok", "unlimited"},
	} {
		require.Equal(t, tc.level, tc.m.Level())
		require.Contains(t, tc.m.Words(), tc.says)
	}
}

func TestTrendDrawsTheScoreInEffectEachDayAndLeavesEarlierDaysBlank(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	c := dashboard.Trend([]dashboard.ScorePoint{
		{At: now.AddDate(0, 0, -2), Score: 40, Tier: "at_risk"},
		{At: now.AddDate(0, 0, -40), Score: 20, Tier: "critical"}, // before the window: in effect when it opens
		{At: now, Score: 75, Tier: "healthy"},
	}, now, 30)
	require.Len(t, c.Dots, 30)
	require.True(t, strings.HasPrefix(c.Path, "M36.0 "), c.Path)
	require.Equal(t, "Health score over the last 30 days: from 20 to 75.", c.Summary)
	require.Contains(t, c.Dots[29].Title, "75 (healthy)")
	require.Contains(t, c.Dots[28].Title, "40 (at risk)")
	require.Len(t, c.Bands, 3)

	recent := dashboard.Trend([]dashboard.ScorePoint{{At: now.AddDate(0, 0, -1), Score: 50, Tier: "at_risk"}}, now, 30)
	require.Len(t, recent.Dots, 2, "days before the first score are blank")
	require.Contains(t, recent.Summary, "steady at 50")
	require.Empty(t, dashboard.Trend(nil, now, 30).Path)
}

func TestClientsAreRankedByRisk(t *testing.T) {
	t.Parallel()
	p := func(v int) *int { return &v }
	cs := []dashboard.Client{
		{BusinessName: "unscored"},
		{BusinessName: "low", ChurnProbability: p(10), HealthScore: p(80)},
		{BusinessName: "high", ChurnProbability: p(90), HealthScore: p(10)},
		{BusinessName: "tie-weaker", ChurnProbability: p(50), HealthScore: p(20)},
		{BusinessName: "tie-stronger", ChurnProbability: p(50), HealthScore: p(40)},
	}
	dashboard.RankByRisk(cs)
	var order []string
	for _, c := range cs {
		order = append(order, c.BusinessName)
	}
	require.Equal(t, []string{"high", "tie-weaker", "tie-stronger", "low", "unscored"}, order)
}
