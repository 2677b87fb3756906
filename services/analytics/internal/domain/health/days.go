package health

import "time"

// Days are the UTC calendar days an account's facts are counted over, as of one instant. Activity
// is kept per UTC day, and every window is whole days ending with (and including) the instant's
// own day: the 30-day Window is that day and the 29 before it. The two trend windows abut, so no
// day counts in both.
type Days struct {
	Today  time.Time // the instant's UTC day (midnight UTC), the last day of every window
	Window time.Time // first day of Window
	Chat   time.Time // first day of ChatWindow
	Recent time.Time // first day of the recent TrendWindow
	Prior  time.Time // first day of the TrendWindow before it, which ends the day before Recent
}

// DaysAt gives the windows' days as of now.
func DaysAt(now time.Time) Days {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	first := func(span time.Duration) time.Time { return today.AddDate(0, 0, 1-int(span/(24*time.Hour))) }
	return Days{
		Today:  today,
		Window: first(Window),
		Chat:   first(ChatWindow),
		Recent: first(TrendWindow),
		Prior:  first(2 * TrendWindow),
	}
}

// Earliest is the first day any window counts.
func (d Days) Earliest() time.Time {
	if d.Prior.Before(d.Window) {
		return d.Prior
	}
	return d.Window
}
