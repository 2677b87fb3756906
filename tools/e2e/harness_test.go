package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bizassist/bizassist/libs/apidocs"
	"github.com/bizassist/bizassist/libs/openapitest"
	"github.com/bizassist/bizassist/tools/internal/devenv"
)

// tokenSourceIP is where Stack.Token logs in from: outside every suite's range, so cached
// logins never eat into a suite's own per-IP budget.
const tokenSourceIP = "127.0.0.20"

// runOctet keeps this run's clients apart from earlier runs': the stack's per-address limits
// outlast a run (sign-ups, 5 an hour, ran out on the third run within an hour), so a suite's
// address 127.0.X.Y is dialed as 127.R.X.Y, with R chosen per run. Addresses 127.0.0.Y (the
// token logins, the bench source the stack exempts) stay as they are.
var runOctet = 1 + int(time.Now().UnixNano()%254)

// dialedFrom is the address a client of sourceIP dials from in this run.
func dialedFrom(sourceIP string) string {
	if rest, ok := strings.CutPrefix(sourceIP, "127.0."); ok && !strings.HasPrefix(rest, "0.") {
		return fmt.Sprintf("127.%d.%s", runOctet, rest)
	}
	return sourceIP
}

var (
	stack      *Stack
	skipReason string
)

func TestMain(m *testing.M) {
	if os.Getenv("BIZASSIST_E2E") != "1" {
		skipReason = "end-to-end tests run with BIZASSIST_E2E=1 against make up's stack (make test-e2e)"
		os.Exit(m.Run())
	}
	s, err := loadStack()
	if err == nil {
		err = s.prepare()
	}
	if err != nil {
		// Asked to run but cannot: that is a failure, never a silent pass.
		fmt.Fprintf(os.Stderr, "FAIL: e2e: %v\n", err)
		os.Exit(1)
	}
	stack = s
	os.Exit(m.Run())
}

// Stack is the running local stack, as described by .devstack/env.
type Stack struct {
	Root    string // the repository checkout that runs the stack
	Env     map[string]string
	BaseURL string // https ingress
	HTTPURL string // plain-HTTP port that redirects
	CACert  string

	mu     sync.Mutex
	tokens map[string]string
}

// UseStack returns the stack, or skips t when the suite is not enabled.
func UseStack(t testing.TB) *Stack {
	t.Helper()
	if stack == nil {
		t.Skip(skipReason)
	}
	return stack
}

func loadStack() (*Stack, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root, err := devenv.Root(wd)
	if err != nil {
		return nil, err
	}
	// BIZASSIST_E2E_ENV aims the suite at another install with a file of the same keys (make
	// test-k8s: the single-node cluster through its edge); the default is make up's stack.
	path := os.Getenv("BIZASSIST_E2E_ENV")
	if path == "" {
		path = filepath.Join(root, ".devstack", "env")
	}
	env, err := devenv.Load(path)
	if err != nil {
		return nil, fmt.Errorf("read the stack's settings (run make up first): %w", err)
	}
	s := &Stack{Root: root, Env: env, BaseURL: env["BASE_URL"], HTTPURL: env["HTTP_URL"], CACert: env["CA_CERT"], tokens: map[string]string{}}
	for k, v := range map[string]string{"BASE_URL": s.BaseURL, "HTTP_URL": s.HTTPURL, "CA_CERT": s.CACert} {
		if v == "" {
			return nil, fmt.Errorf("%s has no %s", path, k)
		}
	}
	return s, nil
}

// prepare checks that the ingress answers and clears rate-limit state left by earlier runs, so
// that every run starts with full per-IP and per-email budgets.
func (s *Stack) prepare() error {
	tr, err := devenv.Transport(s.CACert, "")
	if err != nil {
		return err
	}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.BaseURL+"/api/_ingress", nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return fmt.Errorf("the ingress at %s is unreachable (is make up running?): %w", s.BaseURL, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s/api/_ingress: status %d, want 200", s.BaseURL, resp.StatusCode)
	}

	opts, err := redis.ParseURL(s.Env["REDIS_URL"])
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	// Keys are rate:<prefix>:<policy>:<key> (libs/ratelimit) with the default prefix rl.
	iter := rdb.Scan(ctx, 0, "rate:rl:*", 500).Iterator()
	for iter.Next(ctx) {
		if err := rdb.Del(ctx, iter.Val()).Err(); err != nil {
			return fmt.Errorf("reset rate limits: %w", err)
		}
	}
	if err := iter.Err(); err != nil {
		return fmt.Errorf("reset rate limits: %w", err)
	}
	return nil
}

// Get returns a setting from .devstack/env, failing t when it is missing.
func (s *Stack) Get(t testing.TB, key string) string {
	t.Helper()
	v, ok := s.Env[key]
	if !ok || v == "" {
		t.Fatalf("e2e: .devstack/env has no %s", key)
	}
	return v
}

// Client returns an HTTPS client for the ingress that dials from sourceIP (a 127.x address from
// the suite's own range), trusts the stack's CA and does not follow redirects.
func (s *Stack) Client(t testing.TB, sourceIP string) *Client {
	t.Helper()
	return s.client(t, s.BaseURL, sourceIP)
}

// PlainClient is Client for the plain-HTTP port, which only redirects.
func (s *Stack) PlainClient(t testing.TB, sourceIP string) *Client {
	t.Helper()
	return s.client(t, s.HTTPURL, sourceIP)
}

func (s *Stack) client(t testing.TB, base, sourceIP string) *Client {
	t.Helper()
	tr, err := devenv.Transport(s.CACert, dialedFrom(sourceIP))
	if err != nil {
		t.Fatalf("e2e: %v", err)
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &Client{base: base, hc: &http.Client{
		Transport:     tr,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Token logs in once per email for the whole run and returns the cached token afterwards:
// every login costs a password hash and counts against the per-IP login limit, and every suite
// needs the demo accounts.
func (s *Stack) Token(t testing.TB, email string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok, ok := s.tokens[email]; ok {
		return tok
	}
	tok := s.Client(t, tokenSourceIP).Login(t, email, s.Get(t, "DEMO_PASSWORD"))
	s.tokens[email] = tok
	return tok
}

// Client sends requests to one base URL from one source address.
type Client struct {
	base string
	hc   *http.Client
}

// Response is a received response with its body read.
type Response struct {
	Status int
	Header http.Header
	Proto  string
	Raw    []byte
	// JSON is the body decoded as an object; nil when it is not one.
	JSON map[string]any
}

// Do sends method path with an optional bearer token and body, plus any extra headers. body may
// be nil, []byte or string (sent as is), or any other value (sent as JSON).
func (c *Client) Do(t testing.TB, method, path, token string, body any, hdr ...http.Header) *Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("e2e: encode body: %v", err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, c.base+path, rd)
	if err != nil {
		t.Fatalf("e2e: %v", err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for _, h := range hdr {
		for k, vs := range h {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatalf("e2e: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("e2e: %s %s: read body: %v", method, path, err)
	}
	// Every answer to a documented operation is checked against the published document, as a
	// validating proxy (Prism) in front of a client would; a compressed body the test asked to
	// see as sent is not decoded here.
	if resp.Header.Get("Content-Encoding") == "" && published(t).Documents(req) {
		published(t).Check(t, req, resp, raw)
	}
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Proto: resp.Proto, Raw: raw}
	if err := json.Unmarshal(raw, &r.JSON); err != nil {
		r.JSON = nil
	}
	return r
}

var (
	publishedOnce sync.Once
	publishedDoc  *openapitest.Contract
)

// published is the merged OpenAPI document the API reference serves (libs/apidocs).
func published(t testing.TB) *openapitest.Contract {
	publishedOnce.Do(func() { publishedDoc = openapitest.Load(t, apidocs.Document()) })
	return publishedDoc
}

// Login exchanges email and password for a token, failing t unless the login succeeds.
func (c *Client) Login(t testing.TB, email, password string) string {
	t.Helper()
	r := c.Do(t, http.MethodPost, "/api/auth", "", map[string]string{"email": email, "password": password})
	r.Expect(t, http.StatusOK)
	tok, _ := r.JSON["token"].(string)
	if tok == "" {
		t.Fatalf("e2e: login %s: no token in %s", email, r.Raw)
	}
	return tok
}

// Expect fails t, showing the body, unless the status is want.
func (r *Response) Expect(t testing.TB, want int) *Response {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d; body: %s", r.Status, want, r.Raw)
	}
	return r
}
