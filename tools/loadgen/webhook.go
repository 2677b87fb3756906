package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bizassist/bizassist/tools/internal/openloop"
	"github.com/bizassist/bizassist/tools/internal/webhook"
)

// WebhookLoad makes a scenario an end-to-end webhook measurement: inbound new_lead events are
// posted at Rate per second for the scenario's Duration, and each must arrive, signed, at every
// one of Subscriptions receivers on loopback, having travelled the whole chain (inbound API,
// inbox, events to leads, the sheet, events to integrations, the delivery job, the POST).
type WebhookLoad struct {
	Rate          int `yaml:"rate"`
	Subscriptions int `yaml:"subscriptions"`
	// Drain is how long deliveries may still arrive after the last inbound event was accepted.
	Drain time.Duration `yaml:"drain"`
	// MaxInFlight bounds the inbound requests awaiting an answer; past it the offer slows down
	// (and the achieved inbound rate shows it).
	MaxInFlight int `yaml:"maxInFlight"`
	// KillRedisMasterAfter, when set, SIGKILLs the Redis Cluster master of the inbound events'
	// stream this long into the load (make up REDIS=cluster; REDIS_CLUSTER_ADDRS in the env file).
	KillRedisMasterAfter time.Duration `yaml:"killRedisMasterAfter"`
	// RestartRedisNode is the command (its last argument the port is added to) that restarts the
	// killed node, as an orchestrator would restart the process.
	RestartRedisNode []string `yaml:"restartRedisNode"`
	// StopRedisReplica, when set, stops the replica of one stream's master for a while
	// (make up REDIS=cluster): the other streams must flow meanwhile and nothing may be lost.
	StopRedisReplica *ReplicaStop `yaml:"stopRedisReplica"`
	// Quiet, when set, is another account sending at a low rate to its own subscriptions while
	// this scenario's account fans out: its row shows what one account's load does to another's
	// latency (per-account fairness). Its inbound secret is rotated at the start, through the API.
	Quiet *QuietLoad `yaml:"quiet"`
	// Accounts, when set, spreads the events over many accounts instead of the scenario's login:
	// each has Subscriptions receivers of its own and its inbound secret rotated at the start.
	Accounts *AccountsLoad `yaml:"accounts"`
}

// AccountsLoad names the accounts of a many-account run: Email is a pattern with one %d, the
// accounts numbered 1 to Count (make bench-scale seeds them).
type AccountsLoad struct {
	Count    int    `yaml:"count"`
	Email    string `yaml:"email"`
	Password string `yaml:"password"`
}

// QuietLoad is the quiet account of a fairness measurement.
type QuietLoad struct {
	Login         Login `yaml:"login"`
	Rate          int   `yaml:"rate"`
	Subscriptions int   `yaml:"subscriptions"`
}

// WebhookResult is what one webhook scenario measured.
type WebhookResult struct {
	Name          string
	Rate, Subs    int
	Offered       int // inbound events sent
	Accepted      int // inbound events answered 200
	InboundErrors int
	Unavailable   int // inbound answers 503 (refused while a dependency is away; the sender retries)
	ServerErrors  int // inbound answers 5xx other than 503, or no answer
	FirstError    string
	Expected      int // Accepted × Subs
	Delivered     int // distinct webhook-ids that arrived and verified
	Duplicates    int // arrivals of a webhook-id already seen
	Rejected      int // arrivals that failed signature checks or named no lead of this run
	// Elapsed runs from the first inbound request to the last delivery.
	Elapsed time.Duration
	// Latencies run from the intended send time of an inbound request (its place on the
	// schedule, not when it went out: a request sent late because the offer fell behind counts
	// the delay) to the first arrival of each delivery it caused, sorted.
	Latencies []time.Duration
	CPU       CPUSample
	// Quiet marks the row of a scenario's quiet account, measured alongside it (its CPU is the
	// same run's, not its own).
	Quiet bool
	// Failover is set when the scenario killed a Redis master, ReplicaDown when it stopped a
	// replica.
	Failover    *Failover
	ReplicaDown *ReplicaDown
	// AccountP99s are the p99s of each sending account's deliveries, sorted, when there were
	// several: the spread is the per-account fairness of a many-account run.
	AccountP99s []time.Duration
}

// PerSecond is deliveries per second over Elapsed.
func (r WebhookResult) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Delivered) / r.Elapsed.Seconds()
}

// Undelivered is how many expected deliveries did not arrive within the drain.
func (r WebhookResult) Undelivered() int { return max(r.Expected-r.Delivered, 0) }

// Percentile is the p-th percentile of the delivery latencies (nearest rank), 0 when none.
func (r WebhookResult) Percentile(p float64) time.Duration {
	return openloop.Percentile(r.Latencies, p)
}

// subsPerHost is how many subscriptions one receiver host takes: integrations allows an account
// 20 subscriptions to one host, so a wider fan-out listens on more loopback addresses
// (127.0.0.1, 127.0.0.2, ...).
const subsPerHost = 20

// sentEvent is one inbound event of a run: its intended send time and the account it was sent for.
type sentEvent struct {
	due     time.Time
	account int
}

// receiver counts the verified deliveries of one run: the first arrival of each webhook-id per
// subscription, for a lead this run sent, with its latency from the inbound request.
type receiver struct {
	hosts []*webhook.Receiver
	sent  *sync.Map // lead email -> sentEvent

	mu        sync.Mutex
	seen      map[string]bool
	latencies []time.Duration
	byAccount map[int][]time.Duration
	last      time.Time
	dup, bad  int
	delivered atomic.Int64
}

// newReceiver listens on enough loopback addresses for subs subscriptions of each account.
func newReceiver(sent *sync.Map, subs int) (*receiver, error) {
	rc := &receiver{sent: sent, seen: map[string]bool{}, byAccount: map[int][]time.Duration{}}
	for h := range (subs + subsPerHost - 1) / subsPerHost {
		wr, err := webhook.NewReceiver(fmt.Sprintf("127.0.0.%d:0", h+1), func(d webhook.Delivery) int { return rc.serve(h, d) })
		if err != nil {
			rc.Close()
			return nil, err
		}
		rc.hosts = append(rc.hosts, wr)
	}
	return rc, nil
}

// Close stops every host's receiver.
func (rc *receiver) Close() {
	for _, h := range rc.hosts {
		_ = h.Close()
	}
}

// Rejected is how many arrivals failed verification at any host.
func (rc *receiver) Rejected() int {
	n := 0
	for _, h := range rc.hosts {
		n += h.Rejected()
	}
	return n
}

func (rc *receiver) serve(host int, d webhook.Delivery) int {
	var lead struct {
		Email string `json:"email"`
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var sent any
	ok := json.Unmarshal(d.Body, &lead) == nil
	if ok {
		sent, ok = rc.sent.Load(lead.Email)
	}
	if !ok {
		rc.bad++
		return http.StatusBadRequest
	}
	// A retry or replay keeps its webhook-id: count the first arrival once per subscription.
	key := strconv.Itoa(host) + " " + strconv.Itoa(d.Sub) + " " + d.ID
	if rc.seen[key] {
		rc.dup++
	} else {
		rc.seen[key] = true
		ev := sent.(sentEvent)
		latency := d.Arrived.Sub(ev.due)
		rc.latencies = append(rc.latencies, latency)
		rc.byAccount[ev.account] = append(rc.byAccount[ev.account], latency)
		rc.last = d.Arrived
		rc.delivered.Add(1)
	}
	return http.StatusNoContent
}

// sender is one account whose inbound events a run posts: its API for the receivers'
// subscriptions and its inbound request headers.
type sender struct {
	api     webhook.API
	headers map[string]string
}

// senders signs in the accounts a run sends for: the scenario's login with its headers, or each
// account of wl.Accounts with an inbound secret rotated through the API.
func senders(ctx context.Context, hc *http.Client, base string, sc Scenario, logins *Logins) ([]sender, error) {
	wl := sc.Webhook
	if wl.Accounts == nil {
		token, err := logins.Token(ctx, hc, base, *sc.Login)
		if err != nil {
			return nil, err
		}
		return []sender{{api: webhook.API{HC: hc, Base: base, Token: token}, headers: sc.Headers}}, nil
	}
	out := make([]sender, 0, wl.Accounts.Count)
	for n := 1; n <= wl.Accounts.Count; n++ {
		email := fmt.Sprintf(wl.Accounts.Email, n)
		token, err := logins.Token(ctx, hc, base, Login{Email: email, Password: wl.Accounts.Password})
		if err != nil {
			return nil, fmt.Errorf("account %s: %w", email, err)
		}
		api := webhook.API{HC: hc, Base: base, Token: token}
		secret, err := rotateSecret(ctx, api)
		if err != nil {
			return nil, fmt.Errorf("account %s: %w", email, err)
		}
		out = append(out, sender{api: api, headers: withHeader(sc.Headers, "X-Ext-Secret", secret)})
	}
	return out, nil
}

// rotateSecret issues the account a new inbound secret and returns it.
func rotateSecret(ctx context.Context, api webhook.API) (string, error) {
	var rotated struct {
		Secret string `json:"secret"`
	}
	if err := api.Do(ctx, http.MethodPost, "/api/ext-webhook/secret/rotate", nil, &rotated); err != nil {
		return "", fmt.Errorf("rotate the inbound secret: %w", err)
	}
	return rotated.Secret, nil
}

// withHeader is a copy of h with k set to v.
func withHeader(h map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(h)+1)
	for hk, hv := range h {
		out[hk] = hv
	}
	out[k] = v
	return out
}

// RunWebhook subscribes wl.Subscriptions receivers for new_lead for each sending account (the
// scenario's login, or wl.Accounts), posts inbound new_lead events to sc.Path with each account's
// headers in turn, waits for the deliveries and unsubscribes.
func RunWebhook(ctx context.Context, hc *http.Client, base string, sc Scenario, logins *Logins, meter *CPUMeter, st Stack) (WebhookResult, error) {
	wl := *sc.Webhook
	from, err := senders(ctx, hc, base, sc, logins)
	if err != nil {
		return WebhookResult{}, err
	}
	sent := &sync.Map{}
	rc, err := newReceiver(sent, wl.Subscriptions)
	if err != nil {
		return WebhookResult{}, err
	}
	defer rc.Close()
	type subscription struct {
		api webhook.API
		id  string
	}
	var subs []subscription
	defer func() {
		// Detached: a run cut short by ^C must still leave no subscription behind.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		for _, sub := range subs {
			if err := sub.api.Unsubscribe(dctx, sub.id); err != nil {
				fmt.Printf("    %s: unsubscribe %s: %v\n", sc.Name, sub.id, err)
			}
		}
	}()
	for _, s := range from {
		for i := range wl.Subscriptions {
			sub, err := s.api.Subscribe(ctx, rc.hosts[i/subsPerHost], "new_lead")
			if err != nil {
				return WebhookResult{}, err
			}
			subs = append(subs, subscription{s.api, sub.ID})
		}
	}

	runID := make([]byte, 4)
	_, _ = rand.Read(runID)
	res := WebhookResult{Name: sc.Name, Rate: wl.Rate, Subs: wl.Subscriptions}
	before, err := meter.Sample()
	if err != nil {
		return res, err
	}
	start := time.Now()
	fault := make(chan error, 1)
	seeds := strings.Split(st.Env["REDIS_CLUSTER_ADDRS"], ",")
	prefix := cmp.Or(st.Env["EVENTS_STREAM_PREFIX"], "bizassist")
	switch {
	case (wl.KillRedisMasterAfter > 0 || wl.StopRedisReplica != nil) && seeds[0] == "":
		return res, errors.New("killRedisMasterAfter and stopRedisReplica need the Redis Cluster of make up REDIS=cluster (REDIS_CLUSTER_ADDRS)")
	case wl.KillRedisMasterAfter > 0:
		go func() {
			time.Sleep(wl.KillRedisMasterAfter)
			f, err := killMasterOf(ctx, seeds, prefix+":inbound.new_lead", wl.RestartRedisNode)
			if err == nil {
				f.RateLimited, f.Budget, f.FallbackActive, err = checkRateLimits(ctx, st)
			}
			res.Failover = &f
			fault <- err
		}()
	case wl.StopRedisReplica != nil:
		go func() {
			time.Sleep(wl.StopRedisReplica.After)
			d, err := stopReplicaFor(ctx, hc, st, seeds, *wl.StopRedisReplica, prefix)
			res.ReplicaDown = &d
			fault <- err
		}()
	default:
		fault <- nil
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		inflight = make(chan struct{}, wl.MaxInFlight)
		interval = time.Second / time.Duration(wl.Rate)
		total    = int(sc.Duration / interval)
	)
	for i := 0; i < total && ctx.Err() == nil; i++ {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		due := start.Add(time.Duration(i) * interval) // latency counts from here (coordinated omission)
		inflight <- struct{}{}
		res.Offered++
		email := fmt.Sprintf("wh-%s-%d@example.com", hex.EncodeToString(runID), i)
		account := i % len(from)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-inflight }()
			body, _ := json.Marshal(map[string]string{"event": "new_lead", "name": "Load " + strconv.Itoa(i), "email": email})
			sent.Store(email, sentEvent{due: due, account: account})
			status, err := inbound(ctx, hc, base+sc.Path, from[account].headers, body)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.InboundErrors++
				if status == http.StatusServiceUnavailable {
					res.Unavailable++
				} else if status == 0 || status >= 500 {
					res.ServerErrors++
				}
				if res.FirstError == "" {
					res.FirstError = err.Error()
				}
				return
			}
			res.Accepted++
		}()
	}
	wg.Wait()
	if err := <-fault; err != nil {
		return res, fmt.Errorf("redis fault: %w", err)
	}
	res.Expected = res.Accepted * wl.Subscriptions
	deadline := time.Now().Add(wl.Drain)
	for int(rc.delivered.Load()) < res.Expected && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	after, err := meter.Sample()
	if err != nil {
		return res, err
	}
	res.CPU = after.Sub(before)

	rc.mu.Lock()
	defer rc.mu.Unlock()
	res.Delivered, res.Duplicates, res.Rejected = len(rc.latencies), rc.dup, rc.bad+rc.Rejected()
	res.Latencies = slices.Clone(rc.latencies)
	slices.Sort(res.Latencies)
	if len(from) > 1 {
		for _, ls := range rc.byAccount {
			ls = slices.Clone(ls)
			slices.Sort(ls)
			res.AccountP99s = append(res.AccountP99s, openloop.Percentile(ls, 99))
		}
		slices.Sort(res.AccountP99s)
	}
	if !rc.last.IsZero() {
		res.Elapsed = rc.last.Sub(start)
	}
	return res, nil
}

// RunWebhookWithQuiet is RunWebhook, with the scenario's quiet account (if any) sending to its
// own subscriptions at the same time; the quiet account's result comes second.
func RunWebhookWithQuiet(ctx context.Context, hc *http.Client, base string, sc Scenario, logins *Logins, meter *CPUMeter, st Stack) ([]WebhookResult, error) {
	q := sc.Webhook.Quiet
	if q == nil {
		res, err := RunWebhook(ctx, hc, base, sc, logins, meter, st)
		return []WebhookResult{res}, err
	}
	token, err := logins.Token(ctx, hc, base, q.Login)
	if err != nil {
		return nil, err
	}
	secret, err := rotateSecret(ctx, webhook.API{HC: hc, Base: base, Token: token})
	if err != nil {
		return nil, fmt.Errorf("quiet account: %w", err)
	}
	quiet := sc
	quiet.Name = sc.Name + "/quiet"
	quiet.Login = &q.Login
	quiet.Headers = withHeader(sc.Headers, "X-Ext-Secret", secret)
	wl := *sc.Webhook
	wl.Rate, wl.Subscriptions, wl.Quiet, wl.Accounts, wl.KillRedisMasterAfter, wl.StopRedisReplica = q.Rate, q.Subscriptions, nil, nil, 0, nil
	quiet.Webhook = &wl
	var (
		wg   sync.WaitGroup
		qres WebhookResult
		qerr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		qres, qerr = RunWebhook(ctx, hc, base, quiet, logins, meter, st)
		qres.Quiet = true
	}()
	res, err := RunWebhook(ctx, hc, base, sc, logins, meter, st)
	wg.Wait()
	if err == nil {
		err = qerr
	}
	return []WebhookResult{res, qres}, err
}

// inbound posts one inbound event and returns the answer's status (0 when there was none).
func inbound(ctx context.Context, hc *http.Client, url string, headers map[string]string, body []byte) (int, error) {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	status, out, err := webhook.Inbound(ctx, hc, url, h, body)
	if err != nil {
		return status, err
	}
	if status != http.StatusOK || !out.Processed {
		return status, fmt.Errorf("status %d %s (processed %t)", status, out.Error, out.Processed)
	}
	return status, nil
}
