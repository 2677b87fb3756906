// Package apiclient is how one service calls another's HTTP API: JSON bodies, the acting caller's
// bearer token, the browser's address when the caller is a proxy for one (the console), an
// OpenTelemetry client span per call that carries the trace to the callee, and the error envelope
// decoded into an *Error whose Kind is the apperr kind its status means.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

// maxAnswer bounds an answer read into memory; Send streams larger ones (the CSV export).
const maxAnswer = 4 << 20

// Client calls one service. It is safe for concurrent use and keeps connections open between calls.
type Client struct {
	service string // the callee, named in spans and errors
	base    string
	http    *http.Client
}

// New returns a client of service at baseURL whose every call, answer included, is bounded by
// timeout.
func New(service, baseURL string, timeout time.Duration) *Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 64 // services call each other on most requests: keep them warm
	return &Client{service: service, base: strings.TrimRight(baseURL, "/"), http: &http.Client{
		Timeout: timeout,
		Transport: otelhttp.NewTransport(transport, otelhttp.WithSpanNameFormatter(
			func(_ string, r *http.Request) string { return r.Method + " " + service + " " + r.URL.Path })),
		// A redirect is never followed: it would carry the caller's token to wherever it points.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Close drops idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Request is one call. Path includes the route's prefix ("/internal/usage/reserve").
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Token  string      // sent as a bearer token; empty sends none
	Body   any         // JSON-encoded when not nil
	Header http.Header // more headers, such as Idempotency-Key
}

type forwardedKey struct{}

// WithForwardedFor makes calls made with ctx send addr as X-Forwarded-For, so that the callee's
// per-address limits count the person a proxy acts for (the callee must trust the proxy).
func WithForwardedFor(ctx context.Context, addr netip.Addr) context.Context {
	return context.WithValue(ctx, forwardedKey{}, addr)
}

// Do sends req and decodes a 2xx answer into out (nil skips it). Any other status is an *Error;
// a call that could not be made is another error, or ctx's own when ctx ended.
func (c *Client) Do(ctx context.Context, req Request, out any) error {
	resp, err := c.Send(ctx, req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return c.fail(ctx, req, fmt.Errorf("read the answer: %w", err))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return c.fail(ctx, req, fmt.Errorf("status %d, the answer does not decode: %w", resp.StatusCode, err))
	}
	return nil
}

// Send sends req and returns a 2xx answer for the caller to read and close; any other status is
// an *Error (its body read and closed).
func (c *Client) Send(ctx context.Context, req Request) (*http.Response, error) {
	var body io.Reader
	if req.Body != nil {
		raw, err := json.Marshal(req.Body)
		if err != nil {
			return nil, fmt.Errorf("%s %s %s: encode the body: %w", c.service, req.Method, req.Path, err)
		}
		body = bytes.NewReader(raw)
	}
	target := c.base + req.Path
	if len(req.Query) > 0 {
		target += "?" + req.Query.Encode()
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, target, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s %s: %w", c.service, req.Method, req.Path, err)
	}
	for k, vs := range req.Header {
		hr.Header[k] = vs
	}
	hr.Header.Set("Accept", "application/json")
	if req.Body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+req.Token)
	}
	if addr, ok := ctx.Value(forwardedKey{}).(netip.Addr); ok && addr.IsValid() {
		hr.Header.Set("X-Forwarded-For", addr.String())
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the method and URL are said once, below
		}
		return nil, c.fail(ctx, req, err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer)) // a cut body still has a status
	return nil, c.refusal(resp, raw)
}

// fail is a call that got no usable answer: ctx's error when ctx ended, else cause named.
func (c *Client) fail(ctx context.Context, req Request, cause error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%s %s %s: %w", c.service, req.Method, req.Path, cause)
}

// Error is an answer in the error envelope, or any other status that is not 2xx.
type Error struct {
	Service    string
	Status     int
	Code       string // the envelope's code; empty when the body was not an envelope
	Message    string // the envelope's error, else the status text
	Field      string
	UpgradeURL string
	RetryAfter int // seconds: the envelope's retryAfter, else the Retry-After header
	// Body is the answer as sent, for the fields a caller knows beyond these (see Decode).
	Body []byte
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %d %s: %s", e.Service, e.Status, e.Code, e.Message)
}

// Kind is what the status means in apperr's terms.
func (e *Error) Kind() apperr.Kind { return httpx.KindOf(e.Status) }

// Decode reads the answer's body into dst (the fields of a refusal that a caller knows).
func (e *Error) Decode(dst any) error { return json.Unmarshal(e.Body, dst) }

func (c *Client) refusal(resp *http.Response, body []byte) *Error {
	var env struct {
		Error      string `json:"error"`
		Code       string `json:"code"`
		Field      string `json:"field"`
		UpgradeURL string `json:"upgradeUrl"`
		RetryAfter int    `json:"retryAfter"`
	}
	_ = json.Unmarshal(body, &env) // a body that is not an envelope still has a status
	e := &Error{Service: c.service, Status: resp.StatusCode, Code: env.Code, Message: env.Error, Field: env.Field,
		UpgradeURL: env.UpgradeURL, RetryAfter: env.RetryAfter, Body: body}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && e.RetryAfter == 0 {
		e.RetryAfter = ra
	}
	return e
}

// CheckURL refuses a base URL setting (name=value) that is not an absolute http(s) URL.
func CheckURL(name, value string) error {
	u, err := url.Parse(value)
	if value == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q must be an absolute http(s) URL", name, value)
	}
	return nil
}
