package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"
)

// fakeHooks is the integrations API as the webhook scenario sees it: sign-in, subscribe, secret
// rotation, inbound and unsubscribe. Each inbound lead is delivered, signed, to every subscriber
// of the account whose secret came with it. For account "a" (inbound secret "s3cret"), lead 3 is
// delivered twice to every subscriber, lead 5 never to the second, and one forged delivery is
// sent; any other account's secret is "sec:" and its email, from a rotation.
type fakeHooks struct {
	t  *testing.T
	mu sync.Mutex
	// id -> hook URL, signer and account
	subs     map[string]string
	signers  map[string]*standardwebhooks.Webhook
	accounts map[string]string
	deleted  []string
	wg       sync.WaitGroup
	seq      atomic.Int64
}

func newFakeHooks(t *testing.T) *fakeHooks {
	return &fakeHooks{t: t, subs: map[string]string{}, signers: map[string]*standardwebhooks.Webhook{}, accounts: map[string]string{}}
}

func (f *fakeHooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	account, signedIn := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer tok:")
	switch {
	case r.URL.Path == "/api/auth":
		var in struct{ Email string }
		require.NoError(f.t, json.NewDecoder(r.Body).Decode(&in))
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "token": "tok:" + in.Email})
	case !signedIn && r.URL.Path != "/api/ext-webhook":
		w.WriteHeader(http.StatusUnauthorized)
	case r.URL.Path == "/api/ext-webhook/subscribe":
		var in struct{ HookURL, Event string }
		require.NoError(f.t, json.NewDecoder(r.Body).Decode(&in))
		key := make([]byte, 24)
		_, _ = rand.Read(key)
		secret := "whsec_" + base64.StdEncoding.EncodeToString(key)
		wh, err := standardwebhooks.NewWebhook(secret)
		require.NoError(f.t, err)
		f.mu.Lock()
		id := fmt.Sprintf("hook_%d", len(f.subs))
		f.subs[id], f.signers[id], f.accounts[id] = in.HookURL, wh, account
		f.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]string{"id": id, "secret": secret})
	case r.URL.Path == "/api/ext-webhook/secret/rotate":
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "secret": "sec:" + account, "rotatedAt": time.Now()})
	case strings.HasPrefix(r.URL.Path, "/api/ext-webhook/subscriptions/") && r.Method == http.MethodDelete:
		f.mu.Lock()
		f.deleted = append(f.deleted, strings.TrimPrefix(r.URL.Path, "/api/ext-webhook/subscriptions/"))
		f.mu.Unlock()
		_, _ = w.Write([]byte(`{"ok":true}`))
	case r.URL.Path == "/api/ext-webhook":
		secret := r.Header.Get("X-Ext-Secret")
		from, rotated := strings.CutPrefix(secret, "sec:")
		if secret == "s3cret" {
			from, rotated = "a", true
		}
		if !rotated {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"ok":false,"error":"invalid_secret"}`))
			return
		}
		var lead map[string]string
		require.NoError(f.t, json.NewDecoder(r.Body).Decode(&lead))
		f.deliver(lead["email"], from)
		_, _ = w.Write([]byte(`{"ok":true,"processed":true}`))
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func (f *fakeHooks) deliver(email, account string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	payload, _ := json.Marshal(map[string]string{"event": "new_lead", "email": email})
	for id, url := range f.subs {
		if f.accounts[id] != account {
			continue
		}
		copies := 1
		switch {
		case account != "a":
		case strings.HasSuffix(email, "-3@example.com"):
			copies = 2
		case strings.HasSuffix(email, "-5@example.com") && id == "hook_1":
			copies = 0
		}
		msgID := fmt.Sprintf("msg_%d", f.seq.Add(1))
		signed := f.signers[id]
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for range copies {
				f.post(url, msgID, payload, signed)
			}
			if copies == 1 && account == "a" && strings.HasSuffix(email, "-7@example.com") && id == "hook_0" {
				forger, _ := standardwebhooks.NewWebhook("whsec_" + base64.StdEncoding.EncodeToString([]byte("not the subscription's key!!")))
				f.post(url, "msg_forged", payload, forger)
			}
		}()
	}
}

func (f *fakeHooks) post(url, msgID string, payload []byte, wh *standardwebhooks.Webhook) {
	now := time.Now()
	sig, err := wh.Sign(msgID, now, payload)
	require.NoError(f.t, err)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(payload))
	require.NoError(f.t, err)
	req.Header.Set("webhook-id", msgID)
	req.Header.Set("webhook-timestamp", fmt.Sprint(now.Unix()))
	req.Header.Set("webhook-signature", sig)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(f.t, err)
	resp.Body.Close()
}

func TestRunWebhookCountsDeliveriesDuplicatesAndForgeries(t *testing.T) {
	fake := newFakeHooks(t)
	srv := httptest.NewServer(fake)
	defer srv.Close()

	sc := Scenario{
		Name: "wh", Method: http.MethodPost, Path: "/api/ext-webhook", Headers: map[string]string{"X-Ext-Secret": "s3cret"},
		Login: &Login{Email: "a", Password: "b"}, Duration: 200 * time.Millisecond,
		Webhook: &WebhookLoad{Rate: 50, Subscriptions: 2, Drain: time.Second},
	}
	require.NoError(t, sc.normalize())
	res, err := RunWebhook(context.Background(), srv.Client(), srv.URL, sc, &Logins{}, selfMeter(t), Stack{})
	require.NoError(t, err)
	fake.wg.Wait()

	require.Equal(t, 10, res.Offered)
	require.Equal(t, 10, res.Accepted)
	require.Zero(t, res.InboundErrors)
	require.Equal(t, 20, res.Expected)
	require.Equal(t, 19, res.Delivered, "lead 5 never reached the second subscriber")
	require.Equal(t, 1, res.Undelivered())
	require.Equal(t, 2, res.Duplicates, "lead 3 came twice to each subscriber")
	require.Equal(t, 1, res.Rejected, "the forged signature")
	require.Len(t, res.Latencies, 19)
	require.Positive(t, res.Percentile(99))
	require.Positive(t, res.PerSecond())
	require.Contains(t, res.CPU, "svc")
	require.ElementsMatch(t, []string{"hook_0", "hook_1"}, fake.deleted, "the receivers are unsubscribed")
}

// Many accounts: each event goes out under one account's own secret, reaches that account's
// receivers only, and each account's p99 is reported.
func TestRunWebhookSpreadsEventsOverAccounts(t *testing.T) {
	fake := newFakeHooks(t)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	sc := Scenario{
		Name: "wh", Method: http.MethodPost, Path: "/api/ext-webhook", Duration: 200 * time.Millisecond,
		Webhook: &WebhookLoad{Rate: 60, Subscriptions: 2, Drain: time.Second,
			Accounts: &AccountsLoad{Count: 3, Email: "scale-%02d@example.com", Password: "pw"}},
	}
	require.NoError(t, sc.normalize())
	res, err := RunWebhook(context.Background(), srv.Client(), srv.URL, sc, &Logins{}, selfMeter(t), Stack{})
	require.NoError(t, err)
	fake.wg.Wait()

	require.Equal(t, 12, res.Accepted, "every account's secret was taken")
	require.Equal(t, 24, res.Expected, "each event to its own account's two receivers")
	require.Equal(t, 24, res.Delivered)
	require.Zero(t, res.Rejected+res.Duplicates)
	require.Len(t, res.AccountP99s, 3)
	require.True(t, slices.IsSorted(res.AccountP99s))
	require.Positive(t, res.AccountP99s[0])
	require.ElementsMatch(t, []string{"scale-01@example.com", "scale-02@example.com", "scale-03@example.com"},
		slices.Compact(slices.Sorted(maps.Values(fake.accounts))))
	require.Len(t, fake.deleted, 6, "every account's receivers are unsubscribed")
}

func TestRunWebhookReportsInboundErrors(t *testing.T) {
	fake := newFakeHooks(t)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	sc := Scenario{
		Name: "wh", Method: http.MethodPost, Path: "/api/ext-webhook", Headers: map[string]string{"X-Ext-Secret": "wrong"},
		Login: &Login{Email: "a", Password: "b"}, Duration: 100 * time.Millisecond,
		Webhook: &WebhookLoad{Rate: 20, Subscriptions: 1, Drain: 10 * time.Millisecond},
	}
	require.NoError(t, sc.normalize())
	res, err := RunWebhook(context.Background(), srv.Client(), srv.URL, sc, &Logins{}, selfMeter(t), Stack{})
	require.NoError(t, err)
	require.Equal(t, 2, res.InboundErrors)
	require.Zero(t, res.Expected)
	require.Contains(t, res.FirstError, "status 401 invalid_secret")
}

func TestParseWebhookScenario(t *testing.T) {
	list, err := Parse([]byte(`
scenarios:
  - name: wh
    method: POST
    path: /api/ext-webhook
    headers: {X-Ext-Secret: "${KEY}"}
    login: {email: "${DEMO_GROWTH_EMAIL}", password: "${DEMO_PASSWORD}"}
    webhook: {rate: 300, subscriptions: 5}
`), env)
	require.NoError(t, err)
	require.Equal(t, &WebhookLoad{Rate: 300, Subscriptions: 5, Drain: 30 * time.Second, MaxInFlight: 1000}, list[0].Webhook)

	for name, doc := range map[string]string{
		"no login":      "scenarios: [{name: a, method: POST, path: /x, webhook: {rate: 1, subscriptions: 1}}]",
		"a body":        "scenarios: [{name: a, method: POST, path: /x, body: {a: 1}, login: {email: a, password: b}, webhook: {rate: 1, subscriptions: 1}}]",
		"GET":           "scenarios: [{name: a, path: /x, login: {email: a, password: b}, webhook: {rate: 1, subscriptions: 1}}]",
		"no rate":       "scenarios: [{name: a, method: POST, path: /x, login: {email: a, password: b}, webhook: {subscriptions: 1}}]",
		"too many subs": "scenarios: [{name: a, method: POST, path: /x, login: {email: a, password: b}, webhook: {rate: 1, subscriptions: 101}}]",
		"one account":   "scenarios: [{name: a, method: POST, path: /x, webhook: {rate: 1, subscriptions: 1, accounts: {count: 1, email: 'a%d@x', password: b}}}]",
		"no number":     "scenarios: [{name: a, method: POST, path: /x, webhook: {rate: 1, subscriptions: 1, accounts: {count: 5, email: a@x, password: b}}}]",
		"a string verb": "scenarios: [{name: a, method: POST, path: /x, webhook: {rate: 1, subscriptions: 1, accounts: {count: 5, email: 'a%s@x', password: b}}}]",
	} {
		_, err := Parse([]byte(doc), env)
		require.Error(t, err, name)
	}
}

// An account may subscribe 20 URLs of one host, so a fan-out wider than that listens on more
// loopback addresses.
func TestAWideFanOutListensOnSeveralHosts(t *testing.T) {
	t.Parallel()
	rc, err := newReceiver(&sync.Map{}, 45)
	require.NoError(t, err)
	t.Cleanup(rc.Close)
	require.Len(t, rc.hosts, 3)
	hosts := map[string]bool{}
	for _, h := range rc.hosts {
		host, _, err := net.SplitHostPort(h.Addr())
		require.NoError(t, err)
		hosts[host] = true
	}
	require.Equal(t, map[string]bool{"127.0.0.1": true, "127.0.0.2": true, "127.0.0.3": true}, hosts)
}
