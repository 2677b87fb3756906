package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bizassist/bizassist/tools/internal/webhook"
)

// stackClient reaches the stack through the ingress, as a client and as the integrator.
type stackClient struct {
	hc        *http.Client
	base      string
	extSecret string
	api       webhook.API
	// client is the growth account from an address the per-IP limit applies to, as any client's:
	// its requests go through the rate limiter, the rest of the load's do not.
	client webhook.API
	seq    atomic.Int64
	runID  string
}

// outcome is one request's result: its status, or "conn" for a transport error.
type outcome struct {
	status string
	at     time.Time
}

func (o outcome) ok() bool { return strings.HasPrefix(o.status, "2") }

// nextEvent names a fresh inbound event: the lead's email and the event's webhook-id.
func (c *stackClient) nextEvent() (email, id string) {
	n := c.seq.Add(1)
	return fmt.Sprintf("fault-%s-%d@example.com", c.runID, n), fmt.Sprintf("fault-%s-%d", c.runID, n)
}

// inbound posts the new_lead event of email under webhook-id id and says whether it was
// acknowledged: 200 and processed (a duplicate's 200 acknowledges nothing new).
func (c *stackClient) inbound(ctx context.Context, email, id string) (outcome, bool) {
	body, _ := json.Marshal(map[string]string{"event": "new_lead", "name": "Fault " + email, "email": email})
	h := http.Header{"X-Ext-Secret": {c.extSecret}, "Webhook-Id": {id}}
	status, answer, err := webhook.Inbound(ctx, c.hc, c.base+"/api/ext-webhook", h, body)
	o := outcome{status: strconv.Itoa(status), at: time.Now()}
	if status == 0 {
		o.status = "conn"
	}
	return o, err == nil && status == http.StatusOK && answer.Processed
}

// read is one authenticated read: the account's subscriptions (integrations, PostgreSQL).
func (c *stackClient) read(ctx context.Context, api webhook.API) outcome {
	err := api.Do(ctx, http.MethodGet, "/api/ext-webhook/subscriptions", nil, nil)
	o := outcome{status: "200", at: time.Now()}
	if err != nil {
		o.status = statusOf(err)
	}
	return o
}

// statusOf reads the status from webhook.API's error text ("... status 503: ..."), or "conn".
func statusOf(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": status "); i >= 0 {
		rest := msg[i+len(": status "):]
		if j := strings.IndexByte(rest, ':'); j > 0 {
			return rest[:j]
		}
	}
	return "conn"
}

// tally is what a fault's load saw.
type tally struct {
	mu     sync.Mutex
	acked  []string // emails of acknowledged inbound events
	errors map[string]int
	// lastFailure is the last request that did not succeed.
	lastFailure time.Time
}

func newTally() *tally { return &tally{errors: map[string]int{}} }

func (t *tally) record(o outcome, ackedEmail string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ackedEmail != "" {
		t.acked = append(t.acked, ackedEmail)
	}
	if !o.ok() {
		t.errors[o.status]++
		if o.at.After(t.lastFailure) {
			t.lastFailure = o.at
		}
	}
}

// errorsText is "none", or each status with its count: "503×12 conn×1".
func errorsText(errs map[string]int) string {
	if len(errs) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, errs[k])
	}
	return strings.Join(parts, " ")
}

// loadRate is the bounded loopback load each fault runs under: inbound events and reads per
// second each, at most maxInFlight requests waiting; one read in clientEvery is the rate-limited
// client's (one every two seconds: half the per-IP limit).
const (
	loadRate    = 20
	maxInFlight = 64
	clientEvery = 40
)

// runLoad sends loadRate inbound events and loadRate reads per second until ctx ends, and
// returns when every request it sent has been answered.
func runLoad(ctx context.Context, c *stackClient, t *tally, withReads bool) {
	tick := time.NewTicker(time.Second / loadRate)
	defer tick.Stop()
	sem := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	defer wg.Wait()
	send := func(fn func(context.Context)) {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// Detached: a request in flight when the load stops is still answered and counted.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
			defer cancel()
			fn(rctx)
		}()
	}
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		send(func(ctx context.Context) {
			email, id := c.nextEvent()
			o, acked := c.inbound(ctx, email, id)
			if !acked {
				email = ""
			}
			t.record(o, email)
		})
		if withReads {
			api := c.api
			if n%clientEvery == 0 {
				api = c.client
			}
			send(func(ctx context.Context) { t.record(c.read(ctx, api), "") })
		}
	}
}

// mixedCall is one authenticated request of the normal mix and the status it must get (0: 200).
type mixedCall struct {
	method, path string
	body         any
	want         int
}

// normalMix reaches every route group the SLOs and dashboards cover, as the full-stack demo
// account (no plan limit), next to the inbound events and reads of runLoad.
var normalMix = []mixedCall{
	{http.MethodPost, "/api/auth", map[string]string{"action": "verify"}, 0},
	{http.MethodPost, "/api/lead-finder", map[string]any{"industry": "plumbers", "location": "Austin, TX", "limit": 10}, 0},
	// Clients make mistakes: a place the gazetteer does not know is a 400 that names it.
	{http.MethodPost, "/api/lead-finder", map[string]any{"industry": "plumbers", "location": "Atlantis, ZZ"}, http.StatusBadRequest},
	{http.MethodGet, "/api/scout-stats", nil, 0},
	{http.MethodPost, "/api/chat", map[string]string{"message": "How is my health score?"}, 0},
	{http.MethodGet, "/api/agent-brain-public-feed", nil, 0},
	{http.MethodPost, "/api/log-usage", map[string]any{"feature": "chat", "action": "send_message", "meta": map[string]string{"source": "faults"}}, 0},
	{http.MethodGet, "/api/health-score", nil, 0},
	{http.MethodGet, "/api/churn-predict", nil, 0},
	{http.MethodGet, "/api/pql-check", nil, 0},
}

// runMixedLoad sends normalMix round after round, one round a second, until ctx ends.
func runMixedLoad(ctx context.Context, api webhook.API, t *tally) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		for _, call := range normalMix {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
			err := api.Do(rctx, call.method, call.path, call.body, nil)
			cancel()
			o := outcome{status: "200", at: time.Now()}
			if err != nil {
				o.status = statusOf(err)
			}
			if call.want != 0 && o.status == strconv.Itoa(call.want) {
				o.status = "200" // the answer it must get
			}
			t.record(o, "")
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
