package app

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
)

// ClientsPage is the Clients area (growth and full_stack): the owner's clients with their churn
// prediction, most at risk first; inviting a client; one client's health.
type ClientsPage struct {
	Identity  Identity
	Analytics Analytics
	Now       Clock
}

// List merges identity's client list with analytics' churn predictions (by email, any case)
// and ranks the clients by risk.
func (p ClientsPage) List(ctx context.Context, token string) ([]dashboard.Client, error) {
	var (
		accounts []ClientAccount
		atRisk   []AtRiskClient
		aErr     error
		rErr     error
		wg       sync.WaitGroup
	)
	wg.Go(func() { accounts, aErr = p.Identity.Clients(ctx, token) })
	wg.Go(func() { atRisk, rErr = p.Analytics.AtRisk(ctx, token) })
	wg.Wait()
	if aErr != nil {
		return nil, aErr
	}
	if rErr != nil {
		return nil, rErr
	}
	byEmail := make(map[string]AtRiskClient, len(atRisk))
	for _, c := range atRisk {
		byEmail[strings.ToLower(c.Email)] = c
	}
	out := make([]dashboard.Client, 0, len(accounts))
	for _, a := range accounts {
		c := dashboard.Client{ID: a.ID, Email: a.Email, BusinessName: a.BusinessName, Status: a.Status,
			Tier: a.Tier, LastLogin: a.LastLogin, HealthScore: a.HealthScore}
		if r, ok := byEmail[strings.ToLower(a.Email)]; ok {
			prob, score := r.ChurnProbability, r.HealthScore
			c.ChurnProbability, c.Recommendation = &prob, r.Recommendation
			if c.HealthScore == nil {
				c.HealthScore = &score
			}
		}
		out = append(out, c)
	}
	dashboard.RankByRisk(out)
	return out, nil
}

// Invite invites a client; the invitation's token makes the link the owner sends.
func (p ClientsPage) Invite(ctx context.Context, token string, in Invite) (Invitation, error) {
	return p.Identity.InviteClient(ctx, token, in)
}

// ClientHealth is one client's page: the client as listed, its latest signals and its trend.
type ClientHealth struct {
	Client  dashboard.Client
	Signals map[string]int
	Trend   dashboard.Chart
}

// Client loads one of the caller's clients. ErrNotFound when the caller has no client id. When
// the health history cannot be loaded the client is still returned with the error.
func (p ClientsPage) Client(ctx context.Context, token, id string) (ClientHealth, error) {
	var d ClientHealth
	cs, err := p.List(ctx, token)
	if err != nil {
		return d, err
	}
	i := slices.IndexFunc(cs, func(c dashboard.Client) bool { return c.ID == id })
	if i < 0 {
		return d, ErrNotFound
	}
	d.Client = cs[i]
	points, signals, err := p.Analytics.ClientHealth(ctx, token, id, TrendDays)
	d.Signals, d.Trend = signals, dashboard.Trend(points, p.Now(), TrendDays)
	return d, err
}
