// Package health turns what an account did (its Facts) into ten 0-100 signals, a weighted
// composite score, a tier and a churn probability. It does no I/O and takes the time as an
// argument, so the same facts at the same instant always give the same score.
package health

import (
	"math"
	"time"
)

// Signal names one behavioural sub-score; the names are the keys of the API's signals object.
type Signal string

const (
	LoginRecency    Signal = "loginRecency"
	LoginFrequency  Signal = "loginFrequency"
	FeatureAdoption Signal = "featureAdoption"
	ChatEngagement  Signal = "chatEngagement"
	LeadActivity    Signal = "leadActivity"
	UsageTrend      Signal = "usageTrend"
	PlanUtilisation Signal = "planUtilisation"
	IntegrationUse  Signal = "integrationUse"
	PaymentHealth   Signal = "paymentHealth"
	Tenure          Signal = "tenure"
)

// Signals lists every signal in the order the README documents them.
var Signals = [...]Signal{LoginRecency, LoginFrequency, FeatureAdoption, ChatEngagement, LeadActivity,
	UsageTrend, PlanUtilisation, IntegrationUse, PaymentHealth, Tenure}

// Weights are each signal's share of the composite score; they sum to 100.
var Weights = map[Signal]int{
	LoginRecency:    20,
	LoginFrequency:  12,
	FeatureAdoption: 12,
	ChatEngagement:  10,
	LeadActivity:    12,
	UsageTrend:      10,
	PlanUtilisation: 6,
	IntegrationUse:  4,
	PaymentHealth:   9,
	Tenure:          5,
}

// Windows over which activity counts. Facts are gathered for exactly these spans.
const (
	Window      = 30 * 24 * time.Hour // logins, features, leads, inbound, plan use
	ChatWindow  = 14 * 24 * time.Hour // chat engagement
	TrendWindow = 14 * 24 * time.Hour // usage trend compares the last two of these
)

// step is one threshold: a value at or beyond Bound earns Score.
type step struct {
	Bound float64
	Score int
}

// Thresholds, best first. "atLeast" tables reward large values, "atMost" tables small ones.
var (
	loginRecencyDays  = []step{{1, 100}, {3, 90}, {7, 75}, {14, 50}, {30, 25}, {60, 10}} // atMost, days since last login
	loginDays         = []step{{20, 100}, {12, 80}, {6, 60}, {3, 40}, {1, 20}}           // atLeast, distinct login days in 30d
	featuresUsed      = []step{{4, 100}, {3, 80}, {2, 55}, {1, 30}}                      // atLeast, distinct features in 30d
	chatUses          = []step{{40, 100}, {20, 80}, {10, 60}, {3, 35}, {1, 15}}          // atLeast, chat uses in 14d
	leadsWritten      = []step{{30, 100}, {15, 80}, {5, 55}, {1, 30}}                    // atLeast, leads written in 30d
	trendRatio        = []step{{1.2, 100}, {0.9, 80}, {0.6, 55}, {0.3, 30}}              // atLeast, last 14d / prior 14d
	inboundEvents     = []step{{10, 100}, {3, 70}, {1, 40}}                              // atLeast, inbound webhook events in 30d
	tenureDays        = []step{{365, 100}, {180, 85}, {90, 70}, {30, 55}, {7, 40}}       // atLeast, days since creation
	tenureFloor       = 25                                                               // tenure of an account younger than a week
	trendSomeActivity = 15                                                               // recent use below 0.3 of the prior span
	// A metered feature counts as fully used at this share of its allowance, or at this many
	// uses when it is unlimited.
	utilisationShare     = 0.25
	utilisationUnlimited = 50.0
)

func atLeast(v float64, steps []step) int {
	for _, s := range steps {
		if v >= s.Bound {
			return s.Score
		}
	}
	return 0
}

func atMost(v float64, steps []step) int {
	for _, s := range steps {
		if v <= s.Bound {
			return s.Score
		}
	}
	return 0
}

// Metered is one plan-limited feature's use over the signal window; Limit < 0 means unlimited.
type Metered struct {
	Used  int
	Limit int
}

// Facts is everything the signals read about one account, gathered as of some instant.
type Facts struct {
	CreatedAt     time.Time
	LastLoginAt   time.Time // zero when the account never logged in
	LoginDays     int       // distinct UTC days with a login in Window
	FeaturesUsed  int       // distinct features used in Window
	ChatUses      int       // chat uses in ChatWindow
	LeadsWritten  int       // leads written in Window
	UsageRecent   int       // all feature uses in the last TrendWindow
	UsagePrior    int       // all feature uses in the TrendWindow before that
	Metered       []Metered // the plan's metered features over Window
	InboundEvents int       // inbound webhook events in Window
	Payment       Payment
}

// Values holds the ten sub-scores.
type Values map[Signal]int

func evaluate(f Facts, now time.Time) Values {
	v := make(Values, len(Signals))
	if f.LastLoginAt.IsZero() {
		v[LoginRecency] = 0
	} else {
		v[LoginRecency] = atMost(days(now.Sub(f.LastLoginAt)), loginRecencyDays)
	}
	v[LoginFrequency] = atLeast(float64(f.LoginDays), loginDays)
	v[FeatureAdoption] = atLeast(float64(f.FeaturesUsed), featuresUsed)
	v[ChatEngagement] = atLeast(float64(f.ChatUses), chatUses)
	v[LeadActivity] = atLeast(float64(f.LeadsWritten), leadsWritten)
	v[UsageTrend] = usageTrend(f.UsageRecent, f.UsagePrior)
	v[PlanUtilisation] = planUtilisation(f.Metered)
	v[IntegrationUse] = atLeast(float64(f.InboundEvents), inboundEvents)
	v[PaymentHealth] = f.Payment.Score()
	v[Tenure] = tenure(days(now.Sub(f.CreatedAt)))
	return v
}

func days(d time.Duration) float64 { return d.Hours() / 24 }

// usageTrend rewards use that holds up or grows against the prior span; an account that only
// started using the product in the recent span counts as growing.
func usageTrend(recent, prior int) int {
	switch {
	case recent == 0:
		return 0
	case prior == 0:
		return 100
	}
	if s := atLeast(float64(recent)/float64(prior), trendRatio); s > 0 {
		return s
	}
	return trendSomeActivity
}

// planUtilisation is the average depth of use of the plan's metered features, each capped at 1.
func planUtilisation(ms []Metered) int {
	if len(ms) == 0 {
		return 0
	}
	var sum float64
	for _, m := range ms {
		full := utilisationUnlimited
		if m.Limit >= 0 {
			full = math.Max(1, utilisationShare*float64(m.Limit))
		}
		sum += math.Min(1, float64(m.Used)/full)
	}
	return int(math.Round(100 * sum / float64(len(ms))))
}

func tenure(d float64) int {
	if s := atLeast(d, tenureDays); s > 0 {
		return s
	}
	return tenureFloor
}
