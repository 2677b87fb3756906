package usage

import (
	"slices"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
)

// Feature is a metered feature: one with a monthly allowance per plan.
type Feature string

const (
	Chat        Feature = "chat"
	LeadScoring Feature = "lead_scoring"
	LeadFinder  Feature = "lead_finder"
)

// Metered lists the features the PQL check reports, in response order.
var Metered = []Feature{Chat, LeadScoring, LeadFinder}

// ParseFeature accepts the name of a metered feature.
func ParseFeature(s string) (Feature, error) {
	if f := Feature(s); slices.Contains(Metered, f) {
		return f, nil
	}
	return "", apperr.InvalidField("feature", "must be one of chat, lead_scoring, lead_finder")
}

// Unlimited is the Limit of a feature with no monthly allowance, and its Remaining: the one
// representation of "unlimited" in every answer.
const Unlimited = -1

// LimitOf is f's monthly limit in a plan's limits. A feature the plan has no row for is not part
// of the plan (0): only an explicit NULL row is unlimited, so a plan missing from plan_limits
// gives nothing away.
func LimitOf(limits map[Feature]int, f Feature) int {
	if limit, ok := limits[f]; ok {
		return limit
	}
	return 0
}

// NearLimitPercent is the usagePercent at which an account is a product-qualified lead.
const NearLimitPercent = 80

// Allowance is one feature's use against its limit this month.
type Allowance struct {
	Used  int
	Limit int // Unlimited (-1) when the plan sets no allowance
	Pct   int // floor(100 * Used / Limit); 0 when unlimited
}

// NewAllowance works out pct; over-use shows as more than 100.
func NewAllowance(used, limit int) Allowance {
	a := Allowance{Used: used, Limit: limit}
	switch limit {
	case Unlimited:
	case 0:
		if used > 0 {
			a.Pct = 100
		}
	default:
		a.Pct = used * 100 / limit
	}
	return a
}

// IsUnlimited reports an allowance without a monthly limit.
func (a Allowance) IsUnlimited() bool { return a.Limit == Unlimited }

// Remaining is what is left this month: Unlimited when there is no limit, never below 0 (use
// reported by other services may pass the limit).
func (a Allowance) Remaining() int {
	if a.IsUnlimited() {
		return Unlimited
	}
	return max(a.Limit-a.Used, 0)
}

// Admits reports whether count more uses fit: all of them or none.
func (a Allowance) Admits(count int) bool { return a.IsUnlimited() || a.Used+count <= a.Limit }

// Status is the PQL check's answer.
type Status struct {
	Features map[Feature]Allowance
	// UsagePercent is the highest pct among the limited features reported (0 if none is limited):
	// the account is as close to an upgrade as its most used allowance.
	UsagePercent int
	NearLimit    bool
}

// NewStatus summarises the allowances of the features asked about.
func NewStatus(features map[Feature]Allowance) Status {
	s := Status{Features: features}
	for _, a := range features {
		if a.Limit != Unlimited {
			s.UsagePercent = max(s.UsagePercent, a.Pct)
		}
	}
	s.NearLimit = s.UsagePercent >= NearLimitPercent
	return s
}

// MonthOf returns the first instant of the UTC calendar month containing t and of the next one:
// allowances reset at 00:00 UTC on the first day of the month.
func MonthOf(t time.Time) (start, end time.Time) {
	t = t.UTC()
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0)
}
