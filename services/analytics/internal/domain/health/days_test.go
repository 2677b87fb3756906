package health_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestWindowsAreWholeUTCDaysEndingToday(t *testing.T) {
	t.Parallel()
	d := health.DaysAt(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	require.Equal(t, health.Days{
		Today:  day(2026, 3, 10),
		Window: day(2026, 2, 9),  // 30 days: 9 Feb to 10 Mar
		Chat:   day(2026, 2, 25), // 14 days: 25 Feb to 10 Mar
		Recent: day(2026, 2, 25),
		Prior:  day(2026, 2, 11), // 11 to 24 Feb, the 14 days before Recent
	}, d)
	require.Equal(t, day(2026, 2, 9), d.Earliest())
	require.Equal(t, d.Recent, d.Prior.Add(health.TrendWindow), "the trend windows abut")
	require.Equal(t, d.Today, d.Window.Add(health.Window-24*time.Hour), "Window counts its days, today included")
}

func TestDaysAreTheUTCDayOfTheInstant(t *testing.T) {
	t.Parallel()
	late := time.Date(2026, 3, 10, 23, 30, 0, 0, time.FixedZone("EST", -5*3600)) // 04:30 UTC on 11 Mar
	require.Equal(t, day(2026, 3, 11), health.DaysAt(late).Today)
	require.Equal(t, health.DaysAt(day(2026, 3, 11)), health.DaysAt(day(2026, 3, 11).Add(24*time.Hour-time.Nanosecond)),
		"every instant of a UTC day counts the same days")
}
