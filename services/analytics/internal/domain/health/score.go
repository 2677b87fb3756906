package health

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Tier is the band a composite score falls in.
type Tier string

const (
	Healthy  Tier = "healthy"  // score >= 70
	AtRisk   Tier = "at_risk"  // 30 <= score < 70
	Critical Tier = "critical" // score < 30
)

// Tier boundaries, as services/analytics/README.md documents them.
const (
	HealthyFrom = 70
	AtRiskFrom  = 30
)

// TierOf places a composite score in its tier.
func TierOf(score int) Tier {
	switch {
	case score >= HealthyFrom:
		return Healthy
	case score >= AtRiskFrom:
		return AtRisk
	default:
		return Critical
	}
}

// Score is one evaluation of an account's health.
type Score struct {
	Signals Values
	Value   int
	Tier    Tier
	// Churn is the probability, in percent, that the account leaves (see ChurnModel).
	Churn      int
	ComputedAt time.Time
}

// Evaluate scores f as of now, with churn from model m.
func Evaluate(f Facts, now time.Time, m ChurnModel) Score {
	v := evaluate(f, now)
	return Score{Signals: v, Value: Composite(v), Tier: TierOf(Composite(v)), Churn: m.Probability(v), ComputedAt: now}
}

// Composite is the weighted mean of the signals, rounded to an integer 0-100.
func Composite(v Values) int {
	var sum int
	for s, w := range Weights {
		sum += w * v[s]
	}
	return int(math.Round(float64(sum) / 100))
}

// Restore rebuilds a stored score without re-evaluating it.
func Restore(v Values, value int, tier Tier, churn int, at time.Time) Score {
	return Score{Signals: v, Value: value, Tier: tier, Churn: churn, ComputedAt: at}
}

// EntersCritical reports whether moving from previous (empty when there was no earlier score)
// to next is an entry into the critical tier, the moment health.critical fires. A first score
// that is already critical is an entry too: a client invited and never active is exactly the
// client its owner must hear about, and it is told once, since the next score has a previous tier.
func EntersCritical(previous, next Tier) bool {
	return next == Critical && previous != Critical
}

// actions says what an account manager should do about each signal when it is the weakest.
var actions = map[Signal]string{
	LoginRecency:    "reach out personally: they have stopped logging in",
	LoginFrequency:  "book a check-in call and set up a weekly routine in the product",
	FeatureAdoption: "walk them through the features they have not tried",
	ChatEngagement:  "show them what the chat assistant can answer for them",
	LeadActivity:    "help them run a lead search and fill their leads sheet",
	UsageTrend:      "ask what changed: their usage is falling",
	PlanUtilisation: "review their plan with them: they use little of what they pay for",
	IntegrationUse:  "connect their website forms through the inbound webhook",
	PaymentHealth:   "sort out billing: their payments are failing or they are cancelling",
	Tenure:          "give them onboarding attention: they are new",
}

// Recommendation names the two signals that cost the score the most points (weight times the
// shortfall from 100) and what to do about the first.
func Recommendation(v Values) string {
	weakest := slices.Clone(Signals[:])
	slices.SortStableFunc(weakest, func(a, b Signal) int {
		return Weights[b]*(100-v[b]) - Weights[a]*(100-v[a])
	})
	names := make([]string, 0, 2)
	for _, s := range weakest[:2] {
		names = append(names, fmt.Sprintf("%s %d/100", s, v[s]))
	}
	return fmt.Sprintf("Weakest signals: %s. Next step: %s.", strings.Join(names, ", "), actions[weakest[0]])
}
