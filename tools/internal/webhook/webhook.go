// Package webhook is the integrator's side of the stack's webhooks, shared by the load generator
// and the fault suite: posting inbound events to /api/ext-webhook, the bearer calls around them
// (subscribe, unsubscribe), and a loopback receiver that checks every outbound delivery's
// signature with the Standard Webhooks reference library.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Delivery is one verified arrival at a Receiver.
type Delivery struct {
	Sub     int    // the subscription's index (Receiver.URL)
	ID      string // webhook-id: the same on every retry of one delivery
	Body    []byte
	Arrived time.Time
}

// Receiver serves one URL per subscription on loopback. A request that does not verify against
// its subscription's secret is answered 400 and counted as rejected; a verified one is passed to
// the handler, whose answer is the response status.
type Receiver struct {
	srv    *http.Server
	base   string
	handle func(Delivery) int

	mu        sync.Mutex
	verifiers []*standardwebhooks.Webhook
	rejected  int
}

// NewReceiver listens on addr ("127.0.0.1:0" for any port) and answers verified deliveries with
// handle's status.
func NewReceiver(addr string, handle func(Delivery) int) (*Receiver, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	rc := &Receiver{base: "http://" + ln.Addr().String(), handle: handle}
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = rc.srv.Serve(ln) }()
	return rc, nil
}

// Addr is where the receiver listens (host:port).
func (rc *Receiver) Addr() string { return rc.base[len("http://"):] }

// URL is subscription i's hook URL.
func (rc *Receiver) URL(i int) string { return rc.base + "/hook/" + strconv.Itoa(i) }

// Trust adds the next subscription's secret: the first call's is URL(0)'s.
func (rc *Receiver) Trust(secret string) error {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return err
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.verifiers = append(rc.verifiers, wh)
	return nil
}

// Rejected is how many arrivals failed verification.
func (rc *Receiver) Rejected() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.rejected
}

// Close stops serving; open connections are cut, as when an integrator's server goes down.
func (rc *Receiver) Close() error { return rc.srv.Close() }

func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	payload, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var i int
	if err == nil {
		_, err = fmt.Sscanf(r.URL.Path, "/hook/%d", &i)
	}
	rc.mu.Lock()
	ok := err == nil && i >= 0 && i < len(rc.verifiers) && rc.verifiers[i].Verify(payload, r.Header) == nil
	if !ok {
		rc.rejected++
	}
	rc.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	w.WriteHeader(rc.handle(Delivery{Sub: i, ID: r.Header.Get("webhook-id"), Body: payload, Arrived: arrived}))
}

// Inbound posts one inbound event body to url (the stack's /api/ext-webhook) with headers (the
// X-Ext-Secret, a webhook-id), and returns the status and the answer; a transport error is
// returned as such.
func Inbound(ctx context.Context, hc *http.Client, url string, headers http.Header, body []byte) (int, InboundAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, InboundAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range headers {
		req.Header[k] = vs
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, InboundAnswer{}, err
	}
	defer resp.Body.Close()
	var out InboundAnswer
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return resp.StatusCode, out, fmt.Errorf("status %d: %w", resp.StatusCode, err)
	}
	return resp.StatusCode, out, nil
}

// InboundAnswer is the inbound endpoint's answer.
type InboundAnswer struct {
	Processed bool   `json:"processed"`
	Duplicate bool   `json:"duplicate"`
	Error     string `json:"error"`
}

// API makes the bearer calls around webhooks (subscribe, unsubscribe).
type API struct {
	HC          *http.Client
	Base, Token string
}

// Do sends in as JSON (when not nil) and decodes a 2xx answer into out (when not nil); any other
// status is an error quoting the body.
func (a API) Do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.Base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.Token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.HC.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(raw))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return errors.Join(fmt.Errorf("%s %s: decode answer", method, path), err)
	}
	return nil
}

// Subscription is a subscribe call's answer.
type Subscription struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

// Subscribe subscribes rc.URL(n) for event, n being the number of subscriptions rc trusts so
// far, and makes rc trust its secret.
func (a API) Subscribe(ctx context.Context, rc *Receiver, event string) (Subscription, error) {
	rc.mu.Lock()
	n := len(rc.verifiers)
	rc.mu.Unlock()
	var sub Subscription
	if err := a.Do(ctx, http.MethodPost, "/api/ext-webhook/subscribe", map[string]string{"hookUrl": rc.URL(n), "event": event}, &sub); err != nil {
		return sub, fmt.Errorf("subscribe: %w", err)
	}
	if err := rc.Trust(sub.Secret); err != nil {
		return sub, fmt.Errorf("subscription %s: %w", sub.ID, err)
	}
	return sub, nil
}

// Unsubscribe deletes a subscription.
func (a API) Unsubscribe(ctx context.Context, id string) error {
	return a.Do(ctx, http.MethodDelete, "/api/ext-webhook/subscriptions/"+id, nil, nil)
}
