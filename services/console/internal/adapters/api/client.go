// Package api is the console's client of the public API: each service's /api routes at its
// in-cluster URL, with the signed-in person's token and address. The console reads nothing of
// the services but what any API client could.
package api

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
	"strings"
	"time"

	"github.com/bizassist/bizassist/services/console/internal/app"
)

// maxBody bounds an API answer the console reads into memory (the CSV export is streamed).
const maxBody = 4 << 20

// client calls one service.
type client struct {
	base string
	http *http.Client
}

func newClient(base string, hc *http.Client) client {
	return client{base: strings.TrimRight(base, "/"), http: hc}
}

// do sends a request and decodes a 2xx body into out; any other status becomes an *app.APIError.
func (c client) do(ctx context.Context, method, path, token string, query url.Values, in, out any) error {
	resp, err := c.send(ctx, method, path, token, query, in)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("%s %s: read: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		return refusal(resp, body)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s %s: decode: %w", method, path, err)
	}
	return nil
}

func (c client) send(ctx context.Context, method, path, token string, query url.Values, in any) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	// The browser's address, so the services' per-address limits count the person; the
	// services believe it because the console is among their trusted proxies.
	if ip, ok := app.Origin(ctx); ok {
		req.Header.Set("X-Forwarded-For", ip.String())
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return resp, nil
}

// envelope is the API's error body.
type envelope struct {
	Error      string `json:"error"`
	Code       string `json:"code"`
	Field      string `json:"field"`
	UpgradeURL string `json:"upgradeUrl"`
	RetryAfter int    `json:"retryAfter"`
}

func refusal(resp *http.Response, body []byte) error {
	var e envelope
	_ = json.Unmarshal(body, &e) // an unparsable body still has a status
	ae := &app.APIError{Status: resp.StatusCode, Code: e.Code, Message: e.Error, Field: e.Field,
		UpgradeURL: e.UpgradeURL, RetryAfter: e.RetryAfter}
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && ae.RetryAfter == 0 {
		ae.RetryAfter = ra
	}
	if ae.Message == "" {
		ae.Message = http.StatusText(resp.StatusCode)
	}
	return ae
}

// Config is where each service's API answers.
type Config struct {
	IdentityURL     string        `env:"IDENTITY_URL,required"`
	LeadsURL        string        `env:"LEADS_URL,required"`
	AssistantURL    string        `env:"ASSISTANT_URL,required"`
	AnalyticsURL    string        `env:"ANALYTICS_URL,required"`
	IntegrationsURL string        `env:"INTEGRATIONS_URL,required"`
	Timeout         time.Duration `env:"CONSOLE_API_TIMEOUT" envDefault:"10s"`
}

// Validate checks every URL is absolute http(s).
func (c Config) Validate() error {
	var errs []error
	for name, v := range map[string]string{"IDENTITY_URL": c.IdentityURL, "LEADS_URL": c.LeadsURL,
		"ASSISTANT_URL": c.AssistantURL, "ANALYTICS_URL": c.AnalyticsURL, "INTEGRATIONS_URL": c.IntegrationsURL} {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("%s %q must be an absolute http(s) URL", name, v))
		}
	}
	if c.Timeout <= 0 {
		errs = append(errs, errors.New("CONSOLE_API_TIMEOUT must be positive"))
	}
	return errors.Join(errs...)
}

// New returns the API as app uses it.
func New(cfg Config) app.API {
	hc := &http.Client{Timeout: cfg.Timeout,
		// A redirect from the API is never followed with the token.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second}}
	return app.API{
		Identity:     identity{newClient(cfg.IdentityURL, hc)},
		Analytics:    analytics{newClient(cfg.AnalyticsURL, hc)},
		Leads:        leads{newClient(cfg.LeadsURL, hc)},
		Assistant:    assistant{newClient(cfg.AssistantURL, hc)},
		Integrations: integrations{newClient(cfg.IntegrationsURL, hc)},
	}
}
