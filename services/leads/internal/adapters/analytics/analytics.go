// Package analytics reserves plan allowances with the analytics service (app.Allowances), over
// its internal routes POST /internal/usage/reserve and /internal/usage/release, with the acting
// caller's bearer token.
package analytics

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"

	"github.com/bizassist/bizassist/services/leads/internal/app"
)

// Config says where analytics is and how long a call may take.
type Config struct {
	URL     string        `env:"ANALYTICS_URL"`
	Timeout time.Duration `env:"ANALYTICS_TIMEOUT" envDefault:"2s"`
}

// Validate requires an absolute http(s) URL and a positive timeout.
func (c Config) Validate() error {
	u, err := url.Parse(c.URL)
	if c.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("ANALYTICS_URL %q must be an absolute http(s) URL", c.URL)
	}
	if c.Timeout <= 0 {
		return fmt.Errorf("ANALYTICS_TIMEOUT must be positive, got %s", c.Timeout)
	}
	return nil
}

// maxAnswer bounds what is read of an answer; real ones are a few hundred bytes.
const maxAnswer = 64 << 10

// Client is the allowance port over HTTP. It is safe for concurrent use and keeps connections
// to analytics open between calls.
type Client struct {
	base string
	http *http.Client
}

var _ app.Allowances = (*Client)(nil)

// New returns a client for cfg (validated).
func New(cfg Config) *Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 64 // every request of the service reserves: keep them warm
	return &Client{base: cfg.URL, http: &http.Client{Timeout: cfg.Timeout, Transport: transport}}
}

// Close drops idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

type reserveAnswer struct {
	ReservationID string `json:"reservationId"`
	Used          int    `json:"used"`
	Limit         int    `json:"limit"`
	Remaining     int    `json:"remaining"`
	Unlimited     bool   `json:"unlimited"`
	UpgradeURL    string `json:"upgradeUrl"`
	Code          string `json:"code"`
}

// Reserve answers a granted reservation, *app.LimitReachedError on analytics' 402, and an error
// for anything else (which the app refuses the work on).
func (c *Client) Reserve(ctx context.Context, credential string, r app.AllowanceRequest) (app.Reservation, error) {
	body := map[string]any{"feature": r.Feature, "count": r.Count}
	if r.Action != "" {
		body["action"] = r.Action
	}
	var a reserveAnswer
	status, err := c.post(ctx, "/internal/usage/reserve", credential, body, &a)
	if err != nil {
		return app.Reservation{}, err
	}
	switch {
	case status == http.StatusOK && a.ReservationID != "":
		return app.Reservation{ID: a.ReservationID, Used: a.Used, Limit: a.Limit, Remaining: a.Remaining, Unlimited: a.Unlimited}, nil
	case status == http.StatusPaymentRequired:
		return app.Reservation{}, &app.LimitReachedError{Feature: r.Feature, Used: a.Used, Limit: a.Limit,
			Remaining: a.Remaining, UpgradeURL: a.UpgradeURL}
	default:
		return app.Reservation{}, fmt.Errorf("analytics reserve %s: status %d %s", r.Feature, status, a.Code)
	}
}

// Release gives a reservation back; analytics answering released:false (already gone) is fine.
func (c *Client) Release(ctx context.Context, credential, reservationID string) error {
	var a struct {
		Code string `json:"code"`
	}
	status, err := c.post(ctx, "/internal/usage/release", credential, map[string]string{"reservationId": reservationID}, &a)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("analytics release: status %d %s", status, a.Code)
	}
	return err
}

// post sends body as JSON with the caller's token and decodes the answer (any status) into dst.
func (c *Client) post(ctx context.Context, path, credential string, body, dst any) (int, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+credential)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, fmt.Errorf("analytics %s: read answer: %w", path, err)
	}
	if err := json.Unmarshal(answer, dst); err != nil {
		return 0, fmt.Errorf("analytics %s: status %d, answer is not JSON: %w", path, resp.StatusCode, err)
	}
	return resp.StatusCode, nil
}
