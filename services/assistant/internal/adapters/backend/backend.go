// Package backend implements the assistant's tools as calls to the leads and analytics APIs made
// with the caller's own bearer token, so each service applies its own checks to the caller.
package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/bizassist/bizassist/services/assistant/internal/app"
)

// maxResponse bounds what is read from a tool's answer.
const maxResponse = 1 << 20

// Backend knows where the leads and analytics services are.
type Backend struct {
	leads, analytics string
	client           *http.Client
}

// New returns tools that reach leads and analytics at the given base URLs, each call bounded by
// timeout.
func New(leadsURL, analyticsURL string, timeout time.Duration) *Backend {
	return &Backend{leads: leadsURL, analytics: analyticsURL, client: &http.Client{
		Timeout:   timeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second},
	}}
}

// For returns the tools of the caller holding token and calling from clientIP. The usage status
// is fetched at most once per request: the allowance check and the answer share it.
func (b *Backend) For(token, clientIP string) app.Tools {
	return &tools{b: b, token: token, clientIP: clientIP}
}

type tools struct {
	b               *Backend
	token, clientIP string

	mu       sync.Mutex
	usage    *app.Usage
	usageErr error
}

func (t *tools) FindLeads(ctx context.Context, q app.LeadSearch) (app.LeadResults, error) {
	var out app.LeadResults
	err := t.call(ctx, "lead finder", http.MethodPost, t.b.leads+"/api/lead-finder", q, &out)
	return out, err
}

func (t *tools) RecentLeads(ctx context.Context, limit int) ([]app.SheetLead, error) {
	var out struct {
		Leads []app.SheetLead `json:"leads"`
	}
	err := t.call(ctx, "leads sheet", http.MethodGet, t.b.leads+"/api/leads?limit="+strconv.Itoa(limit), nil, &out)
	return out.Leads, err
}

func (t *tools) Health(ctx context.Context) (app.Health, error) {
	var out app.Health
	err := t.call(ctx, "health score", http.MethodGet, t.b.analytics+"/api/health-score", nil, &out)
	return out, err
}

func (t *tools) Usage(ctx context.Context) (app.Usage, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.usage == nil && t.usageErr == nil {
		var out app.Usage
		if err := t.call(ctx, "usage", http.MethodGet, t.b.analytics+"/api/pql-check", nil, &out); err != nil {
			t.usageErr = err
		} else {
			t.usage = &out
		}
	}
	if t.usageErr != nil {
		return app.Usage{}, t.usageErr
	}
	return *t.usage, nil
}

func (t *tools) ChurnRisks(ctx context.Context, threshold, limit int) (app.Churn, error) {
	var out app.Churn
	q := url.Values{"threshold": {strconv.Itoa(threshold)}, "limit": {strconv.Itoa(limit)}}
	err := t.call(ctx, "churn prediction", http.MethodGet, t.b.analytics+"/api/churn-predict?"+q.Encode(), nil, &out)
	return out, err
}

// failure is the error envelope every service answers with.
type failure struct {
	Error      string `json:"error"`
	Code       string `json:"code"`
	UpgradeURL string `json:"upgradeUrl"`
}

func (t *tools) call(ctx context.Context, tool, method, target string, body, dst any) error {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+t.token)
	req.Header.Set("Accept", "application/json")
	if t.clientIP != "" {
		// The services trust the assistant as a proxy, so their per-IP limits apply to the caller.
		req.Header.Set("X-Forwarded-For", t.clientIP)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := t.b.client.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return &app.ToolError{Tool: tool, Message: unwrapURLError(err).Error()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return &app.ToolError{Tool: tool, Status: resp.StatusCode, Message: "reading the answer: " + err.Error()}
	}
	if resp.StatusCode >= 300 {
		var f failure
		_ = json.Unmarshal(raw, &f)
		if f.Error == "" {
			f.Error = http.StatusText(resp.StatusCode)
		}
		return &app.ToolError{Tool: tool, Status: resp.StatusCode, Code: f.Code, Message: f.Error, UpgradeURL: f.UpgradeURL}
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return &app.ToolError{Tool: tool, Status: resp.StatusCode, Message: fmt.Sprintf("unexpected answer: %v", err)}
	}
	return nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
