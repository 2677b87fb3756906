package app

import (
	"context"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

// Churn-predict bounds.
const (
	DefaultChurnThreshold = 60
	DefaultChurnLimit     = 10
	MaxChurnLimit         = 100
)

// churnPlans may use churn-predict.
var churnPlans = map[string]bool{"growth": true, "full_stack": true}

// PredictChurnInput is a validated churn-predict query.
type PredictChurnInput struct {
	Threshold int
	Limit     int
}

// AtRiskReport is churn-predict's answer.
type AtRiskReport struct {
	AtRisk  int
	Clients []AtRiskEntry
}

// AtRiskEntry is one client at risk, with what to do about it.
type AtRiskEntry struct {
	Email            string
	BusinessName     string
	ChurnProbability int
	HealthScore      int
	LastLogin        time.Time // zero when the client never logged in
	Recommendation   string
}

// PredictChurn ranks the caller's clients by churn probability.
type PredictChurn struct {
	Store      HealthStore
	Accounts   Accounts
	Recompute  Recompute
	UpgradeURL string
}

// Validate checks the bounds of threshold (0-100) and limit (1-MaxChurnLimit).
func (in PredictChurnInput) Validate() error {
	if in.Threshold < 0 || in.Threshold > 100 {
		return apperr.InvalidField("threshold", "must be an integer from 0 to 100")
	}
	if in.Limit < 1 || in.Limit > MaxChurnLimit {
		return apperr.InvalidField("limit", fmt.Sprintf("must be an integer from 1 to %d", MaxChurnLimit))
	}
	return nil
}

func (h PredictChurn) Handle(ctx context.Context, c Caller, in PredictChurnInput) (AtRiskReport, error) {
	if err := in.Validate(); err != nil {
		return AtRiskReport{}, err
	}
	plan, err := currentPlan(ctx, h.Accounts, c)
	if err != nil {
		return AtRiskReport{}, err
	}
	if !churnPlans[plan] {
		return AtRiskReport{}, apperr.Forbidden("plan_upgrade_required",
			"churn prediction is available on the growth and full_stack plans").With("upgradeUrl", h.UpgradeURL)
	}
	// Clients that arrived since the last sweep are scored now rather than left out.
	unscored, err := h.Store.Unscored(ctx, c.AccountID)
	if err != nil {
		return AtRiskReport{}, err
	}
	if err := h.Recompute.Handle(ctx, unscored); err != nil {
		return AtRiskReport{}, err
	}
	clients, total, err := h.Store.AtRisk(ctx, c.AccountID, in.Threshold, in.Limit)
	if err != nil {
		return AtRiskReport{}, err
	}
	out := AtRiskReport{AtRisk: total, Clients: make([]AtRiskEntry, 0, len(clients))}
	for _, cl := range clients {
		out.Clients = append(out.Clients, AtRiskEntry{
			Email: cl.Email, BusinessName: cl.Business, ChurnProbability: cl.Score.Churn,
			HealthScore: cl.Score.Value, LastLogin: cl.LastLoginAt,
			Recommendation: health.Recommendation(cl.Score.Signals),
		})
	}
	return out, nil
}

// ChurnHorizon is how far ahead the fitted model predicts: it learns from signals this long
// before a cancellation.
const ChurnHorizon = 14 * 24 * time.Hour

// FittedChurn reports a fit.
type FittedChurn struct {
	Model             health.ChurnModel
	Churned, Retained int
}

// FitChurnModel refits the churn model from observed cancellations and stores it; scores use it
// from their next recompute. With too few of either outcome it stores nothing and says so
// (health.ErrTooFewChurnSamples).
type FitChurnModel struct {
	Models ChurnModels
	Now    Clock
}

func (h FitChurnModel) Handle(ctx context.Context) (FittedChurn, error) {
	now := h.Now()
	samples, err := h.Models.Samples(ctx, now, ChurnHorizon)
	if err != nil {
		return FittedChurn{}, err
	}
	m, err := health.FitChurn(samples)
	if err != nil {
		return FittedChurn{}, err
	}
	out := FittedChurn{Model: m}
	for _, s := range samples {
		if s.Churned {
			out.Churned++
		} else {
			out.Retained++
		}
	}
	return out, h.Models.Save(ctx, m, out.Churned, out.Retained, now)
}
