// Package dashboard holds the console's presentation rules: when a usage meter warns, how a
// health trend becomes an SVG chart, how clients are ranked by risk. No I/O.
package dashboard

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NearLimitPct is where a meter warns: the PQL check's own nearLimit threshold.
const NearLimitPct = 80

// Meter is one metered feature's use this month.
type Meter struct {
	Feature   string
	Used      int
	Limit     int // -1 when unlimited
	Pct       int
	Unlimited bool
}

// Level is how a meter reads: "ok", "near" (warn and offer the upgrade) or "over".
func (m Meter) Level() string {
	switch {
	case m.Unlimited:
		return "ok"
	case m.Pct >= 100:
		return "over"
	case m.Pct >= NearLimitPct:
		return "near"
	}
	return "ok"
}

// Words says the meter's state in text, so colour is never the only signal.
func (m Meter) Words() string {
	if m.Unlimited {
		return fmt.Sprintf("%d used, unlimited", m.Used)
	}
	s := fmt.Sprintf("%d of %d used (%d%%)", m.Used, m.Limit, m.Pct)
	switch m.Level() {
	case "over":
		return s + ": limit reached"
	case "near":
		return s + ": near the limit"
	}
	return s
}

// Label is the feature's name as people read it.
func (m Meter) Label() string {
	switch m.Feature {
	case "chat":
		return "Assistant chat"
	case "lead_finder":
		return "Lead finder searches"
	case "lead_scoring":
		return "Lead scoring"
	}
	return strings.ReplaceAll(m.Feature, "_", " ")
}

// SortMeters orders meters by feature name, so the page is stable.
func SortMeters(ms []Meter) {
	slices.SortFunc(ms, func(a, b Meter) int { return cmp.Compare(a.Feature, b.Feature) })
}

// ScorePoint is one recorded health score.
type ScorePoint struct {
	At    time.Time
	Score int
	Tier  string
}

// Chart is a health trend drawn in a viewBox of Width x Height.
type Chart struct {
	Width, Height int
	// Path is the SVG path of the line; empty when there is no score in the window.
	Path string
	// Dots mark each day's score, with a title for people who hover or read it out.
	Dots []Dot
	// Bands shade the tiers: critical below 30, at risk below 70, healthy above.
	Bands          []Band
	XTicks, YTicks []Tick
	// Summary says what the chart shows, for its accessible name.
	Summary string
}

// Dot is one day's score on the chart.
type Dot struct {
	X, Y  string
	Title string
}

// Band is a tier's horizontal strip.
type Band struct {
	Tier    string
	Y, H    string
	Caption string
}

// Tick is an axis label.
type Tick struct {
	Pos   string
	Label string
}

const (
	chartW, chartH = 600, 180
	padL, padB     = 36, 22
	padT, padR     = 8, 8
)

// Trend draws the score in effect at the end of each of the last days days (history holds a
// row per change). Days before the first score are left blank rather than invented.
func Trend(points []ScorePoint, now time.Time, days int) Chart {
	c := Chart{Width: chartW, Height: chartH}
	plotW, plotH := float64(chartW-padL-padR), float64(chartH-padT-padB)
	y := func(score int) float64 { return float64(padT) + plotH*(1-float64(score)/100) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	for _, b := range []struct {
		tier, caption string
		lo, hi        int
	}{{"critical", "critical (below 30)", 0, 30}, {"at_risk", "at risk (30 to 69)", 30, 70}, {"healthy", "healthy (70 and above)", 70, 100}} {
		c.Bands = append(c.Bands, Band{Tier: b.tier, Y: f(y(b.hi)), H: f(y(b.lo) - y(b.hi)), Caption: b.caption})
	}
	for _, s := range []int{0, 30, 70, 100} {
		c.YTicks = append(c.YTicks, Tick{Pos: f(y(s) + 4), Label: strconv.Itoa(s)})
	}
	sorted := slices.Clone(points)
	slices.SortFunc(sorted, func(a, b ScorePoint) int { return a.At.Compare(b.At) })
	start := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -(days - 1))
	step := plotW / float64(max(days-1, 1))
	var path strings.Builder
	first, last := -1, -1
	for d := range days {
		day := start.AddDate(0, 0, d)
		end := day.Add(24 * time.Hour)
		i := -1
		for j, p := range sorted {
			if p.At.Before(end) {
				i = j
			}
		}
		x := float64(padL) + step*float64(d)
		if d == 0 || d == days/2 || d == days-1 {
			c.XTicks = append(c.XTicks, Tick{Pos: f(x), Label: day.Format("Jan 2")})
		}
		if i < 0 {
			continue
		}
		p := sorted[i]
		cmd := "L"
		if path.Len() == 0 {
			cmd = "M"
			first = p.Score
		}
		last = p.Score
		fmt.Fprintf(&path, "%s%s %s ", cmd, f(x), f(y(p.Score)))
		c.Dots = append(c.Dots, Dot{X: f(x), Y: f(y(p.Score)), Title: fmt.Sprintf("%s: %d (%s)", day.Format("Jan 2"), p.Score, TierWords(p.Tier))})
	}
	c.Path = strings.TrimSpace(path.String())
	switch {
	case first < 0:
		c.Summary = fmt.Sprintf("No health score in the last %d days yet.", days)
	case first == last:
		c.Summary = fmt.Sprintf("Health score over the last %d days: steady at %d.", days, last)
	default:
		c.Summary = fmt.Sprintf("Health score over the last %d days: from %d to %d.", days, first, last)
	}
	return c
}

// TierWords is a tier as people read it.
func TierWords(tier string) string {
	switch tier {
	case "at_risk":
		return "at risk"
	case "":
		return "not scored yet"
	}
	return tier
}

// Client is one of an owner's clients as the Clients page lists it.
type Client struct {
	ID, Email, BusinessName, Status, Tier string
	LastLogin                             *time.Time
	HealthScore                           *int
	ChurnProbability                      *int
	Recommendation                        string
}

// RankByRisk puts the clients most likely to churn first; unscored clients go last, then by
// lowest health, then by name so the order is stable.
func RankByRisk(cs []Client) {
	val := func(p *int, missing int) int {
		if p == nil {
			return missing
		}
		return *p
	}
	slices.SortStableFunc(cs, func(a, b Client) int {
		return cmp.Or(
			cmp.Compare(val(b.ChurnProbability, -1), val(a.ChurnProbability, -1)),
			cmp.Compare(val(a.HealthScore, 101), val(b.HealthScore, 101)),
			cmp.Compare(a.BusinessName, b.BusinessName))
	})
}
