package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/analyticsevents"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

var now = time.Date(2026, 6, 15, 8, 0, 0, 0, time.UTC)

func clock() time.Time { return now }

// accounts is a projection that knows some plans.
type accounts map[string]string

func (a accounts) Ensure(context.Context, app.Caller, time.Time) error { return nil }
func (a accounts) Plan(_ context.Context, id string) (string, bool, error) {
	p, ok := a[id]
	return p, ok, nil
}

// outbox keeps what the use cases publish.
type outbox struct{ published []contracts.Event }

func (o *outbox) Publish(_ context.Context, evs ...contracts.Event) error {
	o.published = append(o.published, evs...)
	return nil
}

// store is a HealthStore that hands Update the facts it was given and keeps what comes back.
type store struct {
	app.HealthStore
	facts   []app.AccountFacts
	updates []app.ScoreUpdate
}

func (s *store) Update(ctx context.Context, _ []string, _ time.Time, fn func(context.Context, []app.AccountFacts) ([]app.ScoreUpdate, error)) error {
	var err error
	s.updates, err = fn(ctx, s.facts)
	if err != nil {
		return err
	}
	return nil
}

func (s *store) Unscored(context.Context, string) ([]string, error) { return nil, nil }

func (s *store) AtRisk(context.Context, string, int, int) ([]app.AtRiskClient, int, error) {
	return nil, 0, nil
}

// defaultModel has never fitted a churn model.
type defaultModel struct{ app.ChurnModels }

func (defaultModel) Current(context.Context) (health.ChurnModel, bool, error) {
	return health.ChurnModel{}, false, nil
}

func TestPredictChurnRefusesPlansWithoutIt(t *testing.T) {
	t.Parallel()
	h := app.PredictChurn{Store: &store{}, Accounts: accounts{"acc_down": "free"}, UpgradeURL: "https://x.test/pricing"}
	in := app.PredictChurnInput{Threshold: 60, Limit: 10}

	_, err := h.Handle(context.Background(), app.Caller{AccountID: "acc_free", Plan: "free"}, in)
	var e *apperr.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, apperr.KindForbidden, e.Kind)
	require.Equal(t, "plan_upgrade_required", e.Code)
	require.Equal(t, "https://x.test/pricing", e.Details["upgradeUrl"])

	// The projection's plan wins over an older token's.
	_, err = h.Handle(context.Background(), app.Caller{AccountID: "acc_down", Plan: "growth"}, in)
	require.Equal(t, apperr.KindForbidden, apperr.KindOf(err))
	_, err = h.Handle(context.Background(), app.Caller{AccountID: "acc_up", Plan: "full_stack"}, in)
	require.NoError(t, err)
}

func TestPredictChurnInputBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    app.PredictChurnInput
		field string
	}{
		{app.PredictChurnInput{Threshold: 0, Limit: 1}, ""},
		{app.PredictChurnInput{Threshold: 100, Limit: app.MaxChurnLimit}, ""},
		{app.PredictChurnInput{Threshold: 101, Limit: 10}, "threshold"},
		{app.PredictChurnInput{Threshold: -1, Limit: 10}, "threshold"},
		{app.PredictChurnInput{Threshold: 60, Limit: 0}, "limit"},
		{app.PredictChurnInput{Threshold: 60, Limit: app.MaxChurnLimit + 1}, "limit"},
	} {
		err := tc.in.Validate()
		if tc.field == "" {
			require.NoError(t, err, tc.in)
			continue
		}
		var e *apperr.Error
		require.ErrorAs(t, err, &e, tc.in)
		require.Equal(t, tc.field, e.Field)
	}
}

// allowances serves fixed limits and use.
type allowances struct {
	limits map[usage.Feature]int
	used   map[usage.Feature]int
	from   time.Time
}

func (a *allowances) MonthlyUse(_ context.Context, _ string, from, _ time.Time) (map[usage.Feature]int, error) {
	a.from = from
	return a.used, nil
}

func (a *allowances) Limits(context.Context, string) (map[usage.Feature]int, error) {
	return a.limits, nil
}

func TestCheckPQL(t *testing.T) {
	t.Parallel()
	al := &allowances{
		limits: map[usage.Feature]int{usage.Chat: 100, usage.LeadFinder: usage.Unlimited}, // lead_scoring has no row
		used:   map[usage.Feature]int{usage.Chat: 85, usage.LeadFinder: 7, usage.LeadScoring: 3},
	}
	h := app.CheckPQL{Allowances: al, Accounts: accounts{}, UpgradeURL: "https://x.test/p", Now: clock}
	s, err := h.Handle(context.Background(), app.Caller{AccountID: "acc_1", Plan: "growth"}, app.CheckPQLInput{})
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), al.from)
	require.Equal(t, usage.Allowance{Used: 85, Limit: 100, Pct: 85}, s.Features[usage.Chat])
	require.Equal(t, usage.Allowance{Used: 7, Limit: usage.Unlimited}, s.Features[usage.LeadFinder])
	require.Equal(t, usage.Allowance{Used: 3, Limit: 0, Pct: 100}, s.Features[usage.LeadScoring], "no row is not part of the plan, not unlimited")
	require.Equal(t, 100, s.UsagePercent)
	require.True(t, s.NearLimit)
	require.Equal(t, "https://x.test/p", s.UpgradeURL)

	s, err = h.Handle(context.Background(), app.Caller{AccountID: "acc_1"}, app.CheckPQLInput{Feature: "lead_finder"})
	require.NoError(t, err)
	require.Len(t, s.Features, 1)
	require.False(t, s.NearLimit)

	_, err = h.Handle(context.Background(), app.Caller{AccountID: "acc_1"}, app.CheckPQLInput{Feature: "audit_tool"})
	require.Equal(t, apperr.KindInvalid, apperr.KindOf(err))
}

func TestRecomputeAlertsOnlyForClientsEnteringCritical(t *testing.T) {
	t.Parallel()
	quiet := health.Facts{CreatedAt: now.AddDate(-1, 0, 0)}
	s := &store{facts: []app.AccountFacts{
		{AccountID: "acc_c1", OwnerID: "acc_o", Email: "c1@x.test", BusinessName: "C1", Facts: quiet, PreviousTier: health.AtRisk},
		{AccountID: "acc_c2", OwnerID: "acc_o", Facts: quiet, PreviousTier: health.Critical, PreviousScore: 14},
		{AccountID: "acc_c3", OwnerID: "acc_o", Email: "c3@x.test", BusinessName: "C3", Facts: quiet},
		{AccountID: "acc_o", Facts: quiet, PreviousTier: health.Healthy},
	}}
	out := &outbox{}
	require.NoError(t, app.Recompute{Store: s, Models: defaultModel{}, Outbox: out, Now: clock}.Handle(context.Background(), []string{"acc_c1", "acc_c2", "acc_c3", "acc_o"}))
	require.Len(t, s.updates, 4)
	for _, u := range s.updates {
		require.Equal(t, health.Critical, u.Score.Tier, u.AccountID)
	}
	require.NotNil(t, s.updates[0].Alert, "at_risk to critical")
	require.Equal(t, app.CriticalAlert{OwnerID: "acc_o", ClientAccountID: "acc_c1", Email: "c1@x.test", BusinessName: "C1",
		Score: s.updates[0].Score.Value, Recommendation: health.Recommendation(s.updates[0].Score.Signals),
		At: clock()}, *s.updates[0].Alert)
	require.Nil(t, s.updates[1].Alert, "already critical")
	require.NotNil(t, s.updates[2].Alert, "a first score that is critical enters critical")
	require.Nil(t, s.updates[3].Alert, "owners do not alert")
	score := s.updates[0].Score.Value
	require.Equal(t, 14, s.updates[1].Score.Value, "the quiet client c2 keeps its score, so no health.scored for it")
	scored := func(id string) contracts.Event {
		return contracts.Event{Type: analyticsevents.HealthScored, AccountID: "acc_o", Data: analyticsevents.HealthScoredData{
			AccountID: id, Score: score, Tier: "critical", At: isotime.Of(clock())}}
	}
	critical := func(id, email, business string) contracts.Event {
		return contracts.Event{Type: analyticsevents.HealthCritical, AccountID: "acc_o", Data: analyticsevents.HealthCriticalData{
			ClientAccountID: id, Email: email, BusinessName: business, Score: score,
			Recommendation: s.updates[0].Alert.Recommendation, At: isotime.Of(clock())}}
	}
	require.Equal(t, []contracts.Event{critical("acc_c1", "c1@x.test", "C1"), scored("acc_c1"), critical("acc_c3", "c3@x.test", "C3"), scored("acc_c3")},
		out.published, "health.critical to the owner on entry, health.scored for clients whose score changed")
}

func TestLogUsageValidatesTheIdempotencyKey(t *testing.T) {
	t.Parallel()
	h := app.LogUsage{Now: clock}
	for _, key := range []string{"has space", "tab\tkey", "é", string(make([]byte, app.MaxIdempotencyKey+1))} {
		_, err := h.Handle(context.Background(), app.Caller{AccountID: "acc_1"}, app.LogUsageInput{Feature: "chat", IdempotencyKey: key})
		var e *apperr.Error
		require.ErrorAs(t, err, &e, key)
		require.Equal(t, "Idempotency-Key", e.Field)
	}
}

// projection keeps one payment state and the usage it was given.
type projection struct {
	app.Projection
	payment health.PaymentState
	usage   []usage.Event
}

func (p *projection) UpdatePayment(_ context.Context, _ string, _ time.Time, fn func(health.PaymentState) (health.PaymentState, bool)) error {
	if next, changed := fn(p.payment); changed {
		p.payment = next
	}
	return nil
}

func (p *projection) UsageRecorded(_ context.Context, e usage.Event) error {
	p.usage = append(p.usage, e)
	return nil
}

func TestOutOfOrderPaymentEventsAreIgnored(t *testing.T) {
	t.Parallel()
	p := &projection{}
	h := app.NewProjections(p).Payment
	ctx := context.Background()
	require.NoError(t, h.Handle(ctx, app.PaymentCommand{AccountID: "acc_p", Event: health.PaymentEvent{Type: "invoice.payment_failed"}, At: now}))
	require.NoError(t, h.Handle(ctx, app.PaymentCommand{AccountID: "acc_p", Event: health.PaymentEvent{Type: "invoice.paid"}, At: now.Add(-time.Hour)}))
	require.Equal(t, health.PaymentState{Payment: health.Payment{Status: health.PaymentPastDue, Failures: 1}, At: now}, p.payment,
		"the older event arriving late changed nothing")
	require.NoError(t, h.Handle(ctx, app.PaymentCommand{AccountID: "acc_p", Event: health.PaymentEvent{Type: "invoice.paid"}, At: now.Add(time.Hour)}))
	require.Equal(t, health.PaymentActive, p.payment.Status)
}

func TestReportedUsageWithABadFeatureIsSkipped(t *testing.T) {
	t.Parallel()
	p := &projection{}
	h := app.NewProjections(p).Usage
	ctx := context.Background()
	require.NoError(t, h.Handle(ctx, app.ReportedUsageCommand{EventID: "evt_1", AccountID: "acc_1", Feature: "Not A Feature!", Count: 1, At: now}),
		"skipped, not retried")
	require.Empty(t, p.usage)
	require.NoError(t, h.Handle(ctx, app.ReportedUsageCommand{EventID: "evt_2", AccountID: "acc_1", Feature: "chat", Action: "send", Count: 0, At: now}))
	require.Len(t, p.usage, 1)
	require.Equal(t, "evt_2", p.usage[0].ID())
	require.Equal(t, 1, p.usage[0].Count(), "a count below 1 is taken as 1")
}
