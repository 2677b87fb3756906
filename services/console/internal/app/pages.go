package app

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
	"github.com/bizassist/bizassist/services/console/internal/domain/session"
)

// TrendDays is the health chart's window.
const TrendDays = 30

// RecentLeads is how many leads the Overview shows.
const RecentLeads = 5

// Overview is the first page: plan, usage meters, health with its trend, recent leads. Each part
// is fetched at once and fails alone, so one slow or refusing service costs one panel.
type Overview struct {
	Plan      string
	Usage     Usage
	Health    Health
	Trend     dashboard.Chart
	Leads     []Lead
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
	return o, nil
}

// Unauthenticated reports a refusal of the session's token: the session is over.
func Unauthenticated(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusUnauthorized
}

// ListClients is the Clients page: the owner's clients with their churn prediction, most at risk
// first.
type ListClients struct{ API API }

// Handle merges identity's client list with analytics' churn predictions (by email).
func (h ListClients) Handle(ctx context.Context, sess session.Session) ([]dashboard.Client, error) {
	var (
		accounts []ClientAccount
		atRisk   []AtRiskClient
		aErr     error
		rErr     error
		wg       sync.WaitGroup
	)
	wg.Go(func() { accounts, aErr = h.API.Identity.Clients(ctx, sess.Token) })
	wg.Go(func() { atRisk, rErr = h.API.Analytics.AtRisk(ctx, sess.Token) })
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
			p, s := r.ChurnProbability, r.HealthScore
			c.ChurnProbability, c.Recommendation = &p, r.Recommendation
			if c.HealthScore == nil {
				c.HealthScore = &s
			}
		}
		out = append(out, c)
	}
	dashboard.RankByRisk(out)
	return out, nil
}

// Chat is one assistant turn that keeps the conversation in the session, so it survives reloads.
type Chat struct {
	API      API
	Sessions Sessions
}

// Handle sends message in the session's conversation and records the exchange.
func (h Chat) Handle(ctx context.Context, secret session.Secret, sess *session.Session, message string) error {
	r, err := h.API.Assistant.Chat(ctx, sess.Token, message, sess.ChatSession)
	if err != nil {
		return err
	}
	sess.AddTurn(r.SessionID, session.Turn{Message: message, Reply: r.Reply})
	return h.Sessions.SaveChat(ctx, secret, *sess)
}

// PaymentEvents are the payment-processor events an owner may forward (integrations' outbound
// payment types).
var PaymentEvents = []string{
	"checkout.session.completed", "customer.subscription.created", "customer.subscription.updated",
	"customer.subscription.deleted", "invoice.paid", "invoice.payment_failed", "invoice.payment_succeeded",
}

// IsPaymentEvent reports whether event is one of PaymentEvents.
func IsPaymentEvent(event string) bool {
	for _, e := range PaymentEvents {
		if e == event {
			return true
		}
	}
	return false
}

// OptInPayments subscribes hookURL to each chosen payment event and unsubscribes the payment
// subscriptions not chosen, so the form's state becomes the account's: choosing none turns
// forwarding off.
type OptInPayments struct{ API API }

// Handle applies the choice; it stops at the first refusal, leaving what was done so far.
func (h OptInPayments) Handle(ctx context.Context, token, hookURL string, events []string) error {
	current, err := h.API.Integrations.Subscriptions(ctx, token)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, e := range events {
		if IsPaymentEvent(e) {
			want[e] = true
		}
	}
	for e := range want {
		if _, err := h.API.Integrations.Subscribe(ctx, token, hookURL, e); err != nil {
			return err
		}
	}
	for _, s := range current {
		if IsPaymentEvent(s.Event) && (!want[s.Event] || s.HookURL != hookURL) {
			if err := h.API.Integrations.Unsubscribe(ctx, token, s.ID); err != nil {
				return err
			}
		}
	}
	return nil
}
