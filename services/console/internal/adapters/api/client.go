// Package api is the console's client of the public API: each service's /api routes at its
// in-cluster URL, with the signed-in person's token and address, through libs/apiclient. The
// console reads nothing of the services but what any API client could.
package api

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/bizassist/bizassist/libs/apiclient"
	"github.com/bizassist/bizassist/services/console/internal/app"
)

// client calls one service through the shared client (libs/apiclient), in the console's terms:
// the person's address forwarded, a refusal as an *app.APIError the page can word.
type client struct{ api *apiclient.Client }

// do sends a request and decodes a 2xx body into out (nil skips it).
func (c client) do(ctx context.Context, method, path, token string, query url.Values, in, out any) error {
	return refusal(c.api.Do(forwarded(ctx), apiclient.Request{Method: method, Path: path, Query: query, Token: token, Body: in}, out))
}

// send returns a 2xx answer for the caller to stream and close.
func (c client) send(ctx context.Context, method, path, token string, query url.Values, in any) (*http.Response, error) {
	resp, err := c.api.Send(forwarded(ctx), apiclient.Request{Method: method, Path: path, Query: query, Token: token, Body: in})
	return resp, refusal(err)
}

// forwarded carries the browser's address, so the services' per-address limits count the person;
// the services believe it because the console is among their trusted proxies.
func forwarded(ctx context.Context) context.Context {
	if ip, ok := app.Origin(ctx); ok {
		return apiclient.WithForwardedFor(ctx, ip)
	}
	return ctx
}

// refusal turns the API's refusal into the app's; other errors pass as they are.
func refusal(err error) error {
	var e *apiclient.Error
	if !errors.As(err, &e) {
		return err
	}
	return &app.APIError{Status: e.Status, Code: e.Code, Message: e.Message, Field: e.Field,
		UpgradeURL: e.UpgradeURL, RetryAfter: e.RetryAfter}
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
	errs := []error{apiclient.CheckURL("IDENTITY_URL", c.IdentityURL), apiclient.CheckURL("LEADS_URL", c.LeadsURL),
		apiclient.CheckURL("ASSISTANT_URL", c.AssistantURL), apiclient.CheckURL("ANALYTICS_URL", c.AnalyticsURL),
		apiclient.CheckURL("INTEGRATIONS_URL", c.IntegrationsURL)}
	if c.Timeout <= 0 {
		errs = append(errs, errors.New("CONSOLE_API_TIMEOUT must be positive"))
	}
	return errors.Join(errs...)
}

// New returns the API as app uses it.
func New(cfg Config) app.API {
	return app.API{
		Identity:     identity{client{apiclient.New("identity", cfg.IdentityURL, cfg.Timeout)}},
		Analytics:    analytics{client{apiclient.New("analytics", cfg.AnalyticsURL, cfg.Timeout)}},
		Leads:        leads{client{apiclient.New("leads", cfg.LeadsURL, cfg.Timeout)}},
		Assistant:    assistant{client{apiclient.New("assistant", cfg.AssistantURL, cfg.Timeout)}},
		Integrations: integrations{client{apiclient.New("integrations", cfg.IntegrationsURL, cfg.Timeout)}},
	}
}
