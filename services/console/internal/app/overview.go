package app

import (
	"context"
	"sync"

	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
	"github.com/bizassist/bizassist/services/console/internal/domain/session"
	"github.com/bizassist/bizassist/services/console/internal/domain/sheet"
)

// TrendDays is the health chart's window.
const TrendDays = 30

// RecentLeads is how many leads the Overview shows.
const RecentLeads = 5

// NextStep is the one thing the Overview suggests doing next.
type NextStep string

// The next steps, most pressing first.
const (
	StepUpgrade   NextStep = "upgrade"    // near a limit of the plan
	StepFindLeads NextStep = "find-leads" // no lead yet
	StepAPIKey    NextStep = "api-key"    // otherwise: connect other tools
)

// Overview is the first page: plan, usage meters, health with its trend, recent leads. Each part
// is fetched at once and fails alone, so one slow or refusing service costs one panel.
type Overview struct {
	Plan      string
	Usage     Usage
	Health    Health
	Trend     dashboard.Chart
	Leads     []sheet.Lead
	NextStep  NextStep
	PlanErr   error
	UsageErr  error
	HealthErr error
	LeadsErr  error
}

// LoadOverview gathers the Overview.
type LoadOverview struct {
	API API
	Now Clock
}

// Handle fetches every panel concurrently. A 401 from any of them means the session's token no
// longer works and is returned as the error.
func (h LoadOverview) Handle(ctx context.Context, sess session.Session) (Overview, error) {
	var (
		o       Overview
		history []dashboard.ScorePoint
		histErr error
		wg      sync.WaitGroup
	)
	wg.Go(func() {
		v, err := h.API.Identity.Verify(ctx, sess.Token)
		o.Plan, o.PlanErr = v.Plan, err
	})
	wg.Go(func() { o.Usage, o.UsageErr = h.API.Analytics.Usage(ctx, sess.Token) })
	wg.Go(func() { o.Health, o.HealthErr = h.API.Analytics.Health(ctx, sess.Token) })
	wg.Go(func() { history, histErr = h.API.Analytics.HealthHistory(ctx, sess.Token, TrendDays) })
	wg.Go(func() {
		page, err := h.API.Leads.Sheet(ctx, sess.Token, RecentLeads, "")
		o.Leads, o.LeadsErr = page.Leads, err
	})
	wg.Wait()
	if o.HealthErr == nil {
		o.HealthErr = histErr
	}
	for _, err := range []error{o.PlanErr, o.UsageErr, o.HealthErr, o.LeadsErr} {
		if Unauthenticated(err) {
			return o, err
		}
	}
	if o.Plan == "" {
		o.Plan = sess.Plan
	}
	dashboard.SortMeters(o.Usage.Meters)
	o.Trend = dashboard.Trend(history, h.Now(), TrendDays)
	switch {
	case o.Usage.NearLimit && o.Usage.UpgradeURL != "":
		o.NextStep = StepUpgrade
	case o.LeadsErr == nil && len(o.Leads) == 0:
		o.NextStep = StepFindLeads
	default:
		o.NextStep = StepAPIKey
	}
	return o, nil
}
