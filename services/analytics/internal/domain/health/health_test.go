package health_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func TestWeightsCoverEverySignalAndSumTo100(t *testing.T) {
	t.Parallel()
	sum := 0
	for _, s := range health.Signals {
		w, ok := health.Weights[s]
		require.True(t, ok, "no weight for %s", s)
		require.Positive(t, w)
		sum += w
		_, ok = health.DefaultChurnModel.Coefficients[s]
		require.True(t, ok, "no churn coefficient for %s", s)
	}
	require.Len(t, health.Weights, len(health.Signals))
	require.Equal(t, 100, sum)
}

func TestTierBoundaries(t *testing.T) {
	t.Parallel()
	for score, want := range map[int]health.Tier{
		100: health.Healthy, 70: health.Healthy, 69: health.AtRisk, 30: health.AtRisk,
		29: health.Critical, 0: health.Critical,
	} {
		require.Equal(t, want, health.TierOf(score), "score %d", score)
	}
}

// active is an account that uses everything often.
func active(now time.Time) health.Facts {
	return health.Facts{
		CreatedAt: now.AddDate(-1, 0, 0), LastLoginAt: now.Add(-2 * time.Hour), LoginDays: 22,
		FeaturesUsed: 4, ChatUses: 45, LeadsWritten: 31, UsageRecent: 120, UsagePrior: 100,
		Metered:       []health.Metered{{Used: 400, Limit: 1000}, {Used: 60, Limit: -1}},
		InboundEvents: 12, Payment: health.Payment{Status: health.PaymentActive},
	}
}

func TestAnActiveAccountScoresFullMarks(t *testing.T) {
	t.Parallel()
	s := health.Evaluate(active(t0), t0, health.DefaultChurnModel)
	for _, sig := range health.Signals {
		require.Equal(t, 100, s.Signals[sig], sig)
	}
	require.Equal(t, 100, s.Value)
	require.Equal(t, health.Healthy, s.Tier)
	require.Equal(t, 0, s.Churn)
	require.Equal(t, t0, s.ComputedAt)
}

func TestSignalThresholds(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	cases := []struct {
		name   string
		signal health.Signal
		edit   func(*health.Facts)
		want   int
	}{
		{"login a day ago", health.LoginRecency, func(f *health.Facts) { f.LastLoginAt = t0.Add(-day) }, 100},
		{"login just over a day ago", health.LoginRecency, func(f *health.Facts) { f.LastLoginAt = t0.Add(-day - time.Minute) }, 90},
		{"login a week ago", health.LoginRecency, func(f *health.Facts) { f.LastLoginAt = t0.Add(-7 * day) }, 75},
		{"login 14 days ago", health.LoginRecency, func(f *health.Facts) { f.LastLoginAt = t0.Add(-14 * day) }, 50},
		{"login 30 days ago", health.LoginRecency, func(f *health.Facts) { f.LastLoginAt = t0.Add(-30 * day) }, 25},
		{"login 60 days ago", health.LoginRecency, func(f *health.Facts) { f.LastLoginAt = t0.Add(-60 * day) }, 10},
		{"login 61 days ago", health.LoginRecency, func(f *health.Facts) { f.LastLoginAt = t0.Add(-61 * day) }, 0},
		{"never logged in", health.LoginRecency, func(f *health.Facts) { f.LastLoginAt = time.Time{} }, 0},
		{"12 login days", health.LoginFrequency, func(f *health.Facts) { f.LoginDays = 12 }, 80},
		{"11 login days", health.LoginFrequency, func(f *health.Facts) { f.LoginDays = 11 }, 60},
		{"no login days", health.LoginFrequency, func(f *health.Facts) { f.LoginDays = 0 }, 0},
		{"three features", health.FeatureAdoption, func(f *health.Facts) { f.FeaturesUsed = 3 }, 80},
		{"one feature", health.FeatureAdoption, func(f *health.Facts) { f.FeaturesUsed = 1 }, 30},
		{"ten chats", health.ChatEngagement, func(f *health.Facts) { f.ChatUses = 10 }, 60},
		{"two chats", health.ChatEngagement, func(f *health.Facts) { f.ChatUses = 2 }, 15},
		{"five leads", health.LeadActivity, func(f *health.Facts) { f.LeadsWritten = 5 }, 55},
		{"no leads", health.LeadActivity, func(f *health.Facts) { f.LeadsWritten = 0 }, 0},
		{"steady use", health.UsageTrend, func(f *health.Facts) { f.UsageRecent, f.UsagePrior = 90, 100 }, 80},
		{"halved use", health.UsageTrend, func(f *health.Facts) { f.UsageRecent, f.UsagePrior = 50, 100 }, 30},
		{"use nearly stopped", health.UsageTrend, func(f *health.Facts) { f.UsageRecent, f.UsagePrior = 1, 100 }, 15},
		{"use stopped", health.UsageTrend, func(f *health.Facts) { f.UsageRecent, f.UsagePrior = 0, 100 }, 0},
		{"use started", health.UsageTrend, func(f *health.Facts) { f.UsageRecent, f.UsagePrior = 3, 0 }, 100},
		{"half the plan used lightly", health.PlanUtilisation, func(f *health.Facts) {
			f.Metered = []health.Metered{{Used: 125, Limit: 1000}, {Used: 0, Limit: -1}}
		}, 25},
		{"no metered features", health.PlanUtilisation, func(f *health.Facts) { f.Metered = nil }, 0},
		{"three inbound events", health.IntegrationUse, func(f *health.Facts) { f.InboundEvents = 3 }, 70},
		{"one failed payment", health.PaymentHealth, func(f *health.Facts) { f.Payment = health.Payment{Status: health.PaymentPastDue, Failures: 1} }, 40},
		{"new account", health.Tenure, func(f *health.Facts) { f.CreatedAt = t0.Add(-2 * day) }, 25},
		{"month-old account", health.Tenure, func(f *health.Facts) { f.CreatedAt = t0.Add(-30 * day) }, 55},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := active(t0)
			tc.edit(&f)
			require.Equal(t, tc.want, health.Evaluate(f, t0, health.DefaultChurnModel).Signals[tc.signal])
		})
	}
}

func TestPaymentStateFollowsProcessorEvents(t *testing.T) {
	t.Parallel()
	p := health.Payment{Status: health.PaymentUnknown}
	require.Equal(t, 100, p.Score())
	p = p.Apply(health.PaymentEvent{Type: "invoice.payment_failed"})
	require.Equal(t, health.Payment{Status: health.PaymentPastDue, Failures: 1}, p)
	p = p.Apply(health.PaymentEvent{Type: "invoice.payment_failed"})
	require.Equal(t, 15, p.Score())
	p = p.Apply(health.PaymentEvent{Type: "customer.subscription.updated", Status: "past_due", CancelAtPeriodEnd: true})
	require.Equal(t, health.PaymentCanceling, p.Status)
	p = p.Apply(health.PaymentEvent{Type: "invoice.paid"})
	require.Equal(t, health.Payment{Status: health.PaymentActive}, p)
	require.Equal(t, p, p.Apply(health.PaymentEvent{Type: "charge.refunded"}))
	p = p.Apply(health.PaymentEvent{Type: "customer.subscription.deleted"})
	require.Equal(t, 0, p.Score())
}

func TestPaymentEventsOlderThanTheStateAreIgnored(t *testing.T) {
	t.Parallel()
	var s health.PaymentState
	s, applied := s.Apply(health.PaymentEvent{Type: "invoice.payment_failed"}, t0)
	require.True(t, applied, "the first event applies")
	require.Equal(t, health.PaymentState{Payment: health.Payment{Status: health.PaymentPastDue, Failures: 1}, At: t0}, s)

	late, applied := s.Apply(health.PaymentEvent{Type: "invoice.paid"}, t0.Add(-time.Hour))
	require.False(t, applied, "an older event arriving late changes nothing")
	require.Equal(t, s, late)

	same, applied := s.Apply(health.PaymentEvent{Type: "invoice.paid"}, t0)
	require.True(t, applied, "an event of the same instant applies")
	require.Equal(t, health.PaymentActive, same.Status)
}

// An account that stops logging in and using features drifts down the tiers as time passes.
func TestAnIdleAccountDriftsDownTheTiers(t *testing.T) {
	t.Parallel()
	facts := active(t0)
	start := health.Evaluate(facts, t0, health.DefaultChurnModel)
	require.Equal(t, health.Healthy, start.Tier)

	// Time moves on; nothing new happens, so windowed counts fall away as the clock passes them.
	seen := []health.Tier{start.Tier}
	prev := start
	for day := 1; day <= 90; day++ {
		now := t0.AddDate(0, 0, day)
		f := facts
		if day > 14 { // the chat and trend windows have passed the last use
			f.ChatUses, f.UsagePrior, f.UsageRecent = 0, f.UsageRecent, 0
		}
		if day > 28 {
			f.UsagePrior = 0
		}
		if day > 30 { // the 30-day window has passed the last activity
			f.LoginDays, f.FeaturesUsed, f.LeadsWritten, f.InboundEvents = 0, 0, 0, 0
			f.Metered = []health.Metered{{Limit: 1000}, {Limit: -1}}
		}
		s := health.Evaluate(f, now, health.DefaultChurnModel)
		require.LessOrEqual(t, s.Value, prev.Value, "day %d: score rose with no activity", day)
		require.GreaterOrEqual(t, s.Churn, prev.Churn, "day %d", day)
		if s.Tier != seen[len(seen)-1] {
			seen = append(seen, s.Tier)
		}
		prev = s
	}
	require.Equal(t, []health.Tier{health.Healthy, health.AtRisk, health.Critical}, seen)
	require.Greater(t, prev.Churn, 60)
}

func TestEntersCritical(t *testing.T) {
	t.Parallel()
	require.True(t, health.EntersCritical("", health.Critical), "a first score that is critical enters critical")
	require.False(t, health.EntersCritical("", health.AtRisk))
	require.True(t, health.EntersCritical(health.AtRisk, health.Critical))
	require.True(t, health.EntersCritical(health.Healthy, health.Critical))
	require.False(t, health.EntersCritical(health.Critical, health.Critical))
	require.False(t, health.EntersCritical(health.Critical, health.AtRisk))
	require.False(t, health.EntersCritical(health.Healthy, health.AtRisk))
}

func TestChurnModelEndpoints(t *testing.T) {
	t.Parallel()
	zero, half := health.Values{}, health.Values{}
	for _, s := range health.Signals {
		zero[s], half[s] = 0, 50
	}
	require.Equal(t, 95, health.DefaultChurnModel.Probability(zero))
	require.Equal(t, 21, health.DefaultChurnModel.Probability(half))
}

func TestRecommendationNamesTheWeakestSignals(t *testing.T) {
	t.Parallel()
	v := health.Values{}
	for _, s := range health.Signals {
		v[s] = 80
	}
	v[health.ChatEngagement] = 10
	v[health.LoginRecency] = 10
	v[health.Tenure] = 40
	got := health.Recommendation(v)
	require.Equal(t, "Weakest signals: loginRecency 10/100, chatEngagement 10/100. "+
		"Next step: reach out personally: they have stopped logging in.", got)

	// What costs the most points leads, not the lowest raw value: a failing payment (weight 9)
	// outweighs no integration use (weight 4).
	for _, s := range health.Signals {
		v[s] = 100
	}
	v[health.IntegrationUse], v[health.PaymentHealth] = 0, 15
	require.True(t, strings.HasPrefix(health.Recommendation(v), "Weakest signals: paymentHealth 15/100, integrationUse 0/100."))
}

// Synthetic accounts whose churn depends on login recency and payment health only: the fit finds
// those two and leaves the rest near zero.
func TestFitChurnRecoversTheSignalsThatMatter(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	truth := health.ChurnModel{Intercept: 2, Coefficients: map[health.Signal]float64{health.LoginRecency: -5, health.PaymentHealth: -3}}
	var samples []health.ChurnSample
	for range 2000 {
		v := health.Values{}
		for _, s := range health.Signals {
			v[s] = rng.IntN(101)
		}
		churned := rng.Float64()*100 < float64(truth.Probability(v))
		samples = append(samples, health.ChurnSample{Signals: v, Churned: churned})
	}
	m, err := health.FitChurn(samples)
	require.NoError(t, err)
	require.InDelta(t, -5, m.Coefficients[health.LoginRecency], 1)
	require.InDelta(t, -3, m.Coefficients[health.PaymentHealth], 1)
	for _, s := range []health.Signal{health.ChatEngagement, health.LoginFrequency, health.Tenure, health.UsageTrend, health.IntegrationUse} {
		require.InDelta(t, 0, m.Coefficients[s], 0.6, s)
	}
	gone, fine := health.Values{health.LoginRecency: 0, health.PaymentHealth: 0}, health.Values{health.LoginRecency: 100, health.PaymentHealth: 100}
	require.Greater(t, m.Probability(gone), 70)
	require.Less(t, m.Probability(fine), 10)
}

func TestFitChurnNeedsEnoughOfEachOutcome(t *testing.T) {
	t.Parallel()
	samples := make([]health.ChurnSample, 500)
	for i := range health.MinChurnClass - 1 {
		samples[i].Churned = true
	}
	_, err := health.FitChurn(samples)
	require.ErrorIs(t, err, health.ErrTooFewChurnSamples)
}
