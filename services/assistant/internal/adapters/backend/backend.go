// Package backend implements the assistant's tools as calls to the leads and analytics services
// made with the caller's own bearer token (libs/apiclient), so each service applies its own checks
// to the caller. The calls go to the services' /internal routes: they are made on the caller's
// behalf but are not the caller's requests, so they are not charged to the caller's per-IP bucket
// (that bucket already counted the chat request itself).
package backend

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/bizassist/bizassist/libs/apiclient"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
)

// Backend knows the leads and analytics services.
type Backend struct{ leads, analytics *apiclient.Client }

// New returns tools that reach leads and analytics through the given clients.
func New(leads, analytics *apiclient.Client) *Backend {
	return &Backend{leads: leads, analytics: analytics}
}

// For returns the tools of the caller holding token, lead scoring among them.
func (b *Backend) For(token string) app.Tools { return &tools{b: b, token: token} }

var _ app.LeadScoring = (*tools)(nil)

type tools struct {
	b     *Backend
	token string
}

func (t *tools) FindLeads(ctx context.Context, q app.LeadSearch) (app.LeadResults, error) {
	var out app.LeadResults
	err := t.call(ctx, t.b.leads, "lead finder", http.MethodPost, "/internal/lead-finder", nil, q, &out)
	return out, err
}

func (t *tools) RecentLeads(ctx context.Context, limit int) ([]app.SheetLead, error) {
	var out struct {
		Leads []app.SheetLead `json:"leads"`
	}
	err := t.call(ctx, t.b.leads, "leads sheet", http.MethodGet, "/internal/leads", url.Values{"limit": {strconv.Itoa(limit)}}, nil, &out)
	return out.Leads, err
}

// QualifyLead asks leads for one lead's quality (GET /internal/lead-qualify, not metered).
func (t *tools) QualifyLead(ctx context.Context, l app.LeadInput) (app.Qualification, error) {
	var out app.Qualification
	q := url.Values{"email": {l.Email}}
	if l.BusinessName != "" {
		q.Set("businessName", l.BusinessName)
	}
	if l.Phone != "" {
		q.Set("phone", l.Phone)
	}
	err := t.call(ctx, t.b.leads, "lead qualify", http.MethodGet, "/internal/lead-qualify", q, nil, &out)
	return out, err
}

// ScoreLeads scores a batch with leads (POST /internal/lead-quality-batch): one lead_scoring use
// per lead, reserved by leads with the caller's token.
func (t *tools) ScoreLeads(ctx context.Context, leads []app.LeadInput) (app.BatchScores, error) {
	var out app.BatchScores
	err := t.call(ctx, t.b.leads, "lead quality batch", http.MethodPost, "/internal/lead-quality-batch", nil,
		map[string]any{"leads": leads}, &out)
	return out, err
}

func (t *tools) Health(ctx context.Context) (app.Health, error) {
	var out app.Health
	err := t.call(ctx, t.b.analytics, "health score", http.MethodGet, "/internal/health-score", nil, nil, &out)
	return out, err
}

func (t *tools) Usage(ctx context.Context) (app.Usage, error) {
	var out app.Usage
	err := t.call(ctx, t.b.analytics, "usage", http.MethodGet, "/internal/pql-check", nil, nil, &out)
	return out, err
}

func (t *tools) ChurnRisks(ctx context.Context, threshold, limit int) (app.Churn, error) {
	var out app.Churn
	q := url.Values{"threshold": {strconv.Itoa(threshold)}, "limit": {strconv.Itoa(limit)}}
	err := t.call(ctx, t.b.analytics, "churn prediction", http.MethodGet, "/internal/churn-predict", q, nil, &out)
	return out, err
}

// call makes one tool call; what the service refused, or why it could not answer, is a ToolError
// the model can word for the user.
func (t *tools) call(ctx context.Context, c *apiclient.Client, tool, method, path string, query url.Values, body, dst any) error {
	err := c.Do(ctx, apiclient.Request{Method: method, Path: path, Query: query, Token: t.token, Body: body}, dst)
	var refused *apiclient.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &refused):
		return &app.ToolError{Tool: tool, Status: refused.Status, Code: refused.Code, Message: refused.Message, UpgradeURL: refused.UpgradeURL}
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return &app.ToolError{Tool: tool, Message: err.Error()}
	}
}
