// Package backend implements the assistant's tools and its allowance reservations as calls to the
// leads and analytics services made with the caller's own bearer token, so each service applies
// its own checks to the caller. The calls go to the services' /internal routes: they are made on
// the caller's behalf but are not the caller's requests, so they are not charged to the caller's
// per-IP bucket (that bucket already counted the chat request itself).
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
	"time"

	"github.com/bizassist/bizassist/services/assistant/internal/app"
)

// maxResponse bounds what is read from a service's answer.
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

// For returns the tools of the caller holding token.
func (b *Backend) For(token string) app.Tools { return &tools{b: b, token: token} }

// Reserve takes units of an allowance with analytics (POST /internal/usage/reserve). A refusal
// because the allowance is spent is *app.AllowanceExhausted; anything else that is not a
// reservation is an error the caller must treat as "unknown", never as "allowed".
func (b *Backend) Reserve(ctx context.Context, token string, r app.Reservation) (string, error) {
	status, raw, err := b.do(ctx, "allowance", token, http.MethodPost, b.analytics+"/internal/usage/reserve", r)
	if err != nil {
		return "", err
	}
	switch status {
	case http.StatusOK:
		var ok struct {
			ReservationID string `json:"reservationId"`
		}
		if err := json.Unmarshal(raw, &ok); err != nil || ok.ReservationID == "" {
			return "", &app.ToolError{Tool: "allowance", Status: status, Message: "the answer holds no reservation id"}
		}
		return ok.ReservationID, nil
	case http.StatusPaymentRequired:
		spent := &app.AllowanceExhausted{Feature: r.Feature}
		if err := json.Unmarshal(raw, spent); err != nil {
			return "", &app.ToolError{Tool: "allowance", Status: status, Message: fmt.Sprintf("unexpected answer: %v", err)}
		}
		return "", spent
	default:
		return "", refusal("allowance", status, raw)
	}
}

// Release gives back a reservation whose work failed (POST /internal/usage/release).
func (b *Backend) Release(ctx context.Context, token, reservationID string) error {
	body := map[string]string{"reservationId": reservationID}
	status, raw, err := b.do(ctx, "allowance release", token, http.MethodPost, b.analytics+"/internal/usage/release", body)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return refusal("allowance release", status, raw)
	}
	return nil
}

type tools struct {
	b     *Backend
	token string
}

func (t *tools) FindLeads(ctx context.Context, q app.LeadSearch) (app.LeadResults, error) {
	var out app.LeadResults
	err := t.call(ctx, "lead finder", http.MethodPost, t.b.leads+"/internal/lead-finder", q, &out)
	return out, err
}

func (t *tools) RecentLeads(ctx context.Context, limit int) ([]app.SheetLead, error) {
	var out struct {
		Leads []app.SheetLead `json:"leads"`
	}
	err := t.call(ctx, "leads sheet", http.MethodGet, t.b.leads+"/internal/leads?limit="+strconv.Itoa(limit), nil, &out)
	return out.Leads, err
}

func (t *tools) Health(ctx context.Context) (app.Health, error) {
	var out app.Health
	err := t.call(ctx, "health score", http.MethodGet, t.b.analytics+"/internal/health-score", nil, &out)
	return out, err
}

func (t *tools) Usage(ctx context.Context) (app.Usage, error) {
	var out app.Usage
	err := t.call(ctx, "usage", http.MethodGet, t.b.analytics+"/internal/pql-check", nil, &out)
	return out, err
}

func (t *tools) ChurnRisks(ctx context.Context, threshold, limit int) (app.Churn, error) {
	var out app.Churn
	q := url.Values{"threshold": {strconv.Itoa(threshold)}, "limit": {strconv.Itoa(limit)}}
	err := t.call(ctx, "churn prediction", http.MethodGet, t.b.analytics+"/internal/churn-predict?"+q.Encode(), nil, &out)
	return out, err
}

func (t *tools) call(ctx context.Context, tool, method, target string, body, dst any) error {
	status, raw, err := t.b.do(ctx, tool, t.token, method, target, body)
	if err != nil {
		return err
	}
	if status >= 300 {
		return refusal(tool, status, raw)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return &app.ToolError{Tool: tool, Status: status, Message: fmt.Sprintf("unexpected answer: %v", err)}
	}
	return nil
}

// do sends one request with the caller's token and returns the status and the body.
func (b *Backend) do(ctx context.Context, tool, token, method, target string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.client.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return 0, nil, ctxErr
		}
		return 0, nil, &app.ToolError{Tool: tool, Message: unwrapURLError(err).Error()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return 0, nil, &app.ToolError{Tool: tool, Status: resp.StatusCode, Message: "reading the answer: " + err.Error()}
	}
	return resp.StatusCode, raw, nil
}

// refusal turns an error envelope, which every service answers with, into a ToolError.
func refusal(tool string, status int, raw []byte) error {
	var f struct {
		Error      string `json:"error"`
		Code       string `json:"code"`
		UpgradeURL string `json:"upgradeUrl"`
	}
	_ = json.Unmarshal(raw, &f)
	if f.Error == "" {
		f.Error = http.StatusText(status)
	}
	return &app.ToolError{Tool: tool, Status: status, Code: f.Code, Message: f.Error, UpgradeURL: f.UpgradeURL}
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
