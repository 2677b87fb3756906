package service_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// A hook name that resolves to a blocked address (as after DNS rebinding) is refused at dial
// time, and the account's attempt log says so in generic words: never the address it resolved to.
func TestAnAttemptAgainstABlockedAddressShowsNoAddress(t *testing.T) {
	t.Parallel()
	// Only 127.0.0.2 is open to deliveries here, so "localhost" (127.0.0.1) is blocked.
	s := newStackWith(t, map[string]string{"INTEGRATIONS_TARGET_ALLOW_CIDRS": "127.0.0.2/32"})
	token := s.owner(t, "acc_owner_rebind", "rebind@example.com")
	var hits atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(receiver.Close)
	_, port, err := net.SplitHostPort(receiver.Listener.Addr().String())
	require.NoError(t, err)

	// The name passed the check when it was subscribed; what it resolves to now is internal.
	sub := domain.RehydrateSubscription("hook_rebind", "acc_owner_rebind", domain.OutboundNewLead,
		"http://localhost:"+port+"/hook", domain.NewSigningSecret(), domain.SubscriptionActive, time.Now(), nil)
	_, _, err = s.svc.Subscriptions.CreateSubscription(context.Background(), sub)
	require.NoError(t, err)
	s.publish(t, "lead.written", "acc_owner_rebind", map[string]string{"leadId": "lead_rebind", "name": "Jane", "email": "jane@example.com"})

	var attempt map[string]any
	require.Eventually(t, func() bool {
		r := s.do(t, http.MethodGet, "/api/ext-webhook/subscriptions/hook_rebind/deliveries", bearer(token), nil)
		list, _ := r.body["attempts"].([]any)
		if len(list) == 0 {
			return false
		}
		attempt = list[0].(map[string]any)
		return true
	}, 30*time.Second, 20*time.Millisecond, "the refused attempt in the log")
	require.Zero(t, hits.Load(), "the blocked address was never reached")
	require.Nil(t, attempt["statusCode"])
	require.Equal(t, "address not allowed", attempt["error"])

	var stored string
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT error FROM delivery_attempts WHERE subscription_id = 'hook_rebind' LIMIT 1`).Scan(&stored))
	for _, internal := range []string{"127.0.0.1", "::1", "dial", "tcp"} {
		require.False(t, strings.Contains(stored, internal), "stored attempt error %q leaks %q", stored, internal)
	}
}

// One account registering the same URL for the same event again gets the subscription it has,
// not a second one that would double every delivery.
func TestSubscribingTheSameURLAndEventAgainIsIdempotent(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_owner_dup", "dup@example.com")
	body := map[string]string{"hookUrl": "https://hooks.example.com/bizassist", "event": "new_lead"}

	first := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", bearer(token), body)
	require.Equal(t, http.StatusCreated, first.status, first.body)
	require.NotEmpty(t, first.body["secret"])
	for range 3 {
		again := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", bearer(token), body)
		require.Equal(t, http.StatusOK, again.status, again.body)
		require.Equal(t, first.body["id"], again.body["id"])
		require.NotContains(t, again.body, "secret", "the signing secret is shown only when it is created")
	}
	other := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", bearer(token),
		map[string]string{"hookUrl": body["hookUrl"], "event": "health_score.critical"})
	require.Equal(t, http.StatusCreated, other.status, "another event to the same URL is another subscription")
	require.Equal(t, 2, s.count(t, `SELECT count(*) FROM subscriptions WHERE account_id = 'acc_owner_dup'`))
}

// Spellings of one target are one subscription: they are compared, and stored, in canonical form.
func TestSpellingsOfOneHookURLAreOneSubscription(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_owner_spell", "spell@example.com")
	first := s.subscribe(t, token, "https://hooks.example.com/in/bizassist", "new_lead")
	require.Equal(t, http.StatusCreated, first.status, first.body)
	for _, spelled := range []string{
		"https://HOOKS.example.com/in/bizassist",
		"HTTPS://hooks.Example.COM/in/bizassist",
		"https://hooks.example.com:443/in/bizassist",
		"https://hooks.example.com:/in/bizassist",
		"https://hooks.example.com/in/bizassist?",
		"https://hooks.example.com/in/./bizassist",
		"https://hooks.example.com/in/x/../bizassist",
		"https://hooks.example.com/./in/bizassist",
		"https://hooks.example.com/in/%62izassist",
		"https://hooks.ｅxample.com/in/bizassist", // fullwidth e: the same name once mapped (IDNA)
	} {
		r := s.subscribe(t, token, spelled, "new_lead")
		require.Equal(t, http.StatusOK, r.status, "%s: %v", spelled, r.body)
		require.Equal(t, first.body["id"], r.body["id"], spelled)
	}
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM subscriptions WHERE account_id = 'acc_owner_spell'`))

	for url, canonical := range map[string]string{
		"https://Bücher.example/Hooks/./a?":        "https://xn--bcher-kva.example/Hooks/a",
		"https://[2606:4700:0:0::1111]:443/x/../y": "https://[2606:4700::1111]/y",
		"https://hooks.example.com":                "https://hooks.example.com/",
		"https://hooks.example.com:8443/a?b":       "https://hooks.example.com:8443/a?b",
	} {
		r := s.subscribe(t, token, url, "new_lead")
		require.Equal(t, http.StatusCreated, r.status, "%s: %v", url, r.body)
		require.Equal(t, canonical, r.body["hookUrl"], url)
		require.Equal(t, 1, s.count(t, `SELECT count(*) FROM subscriptions WHERE hook_url = $1`, canonical), url)
	}
}

// One account reaches one host through at most 20 subscriptions, whatever the paths.
func TestSubscriptionsToOneHostAreBoundedPerAccount(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_owner_host", "host@example.com")
	for i := range 20 {
		r := s.subscribe(t, token, fmt.Sprintf("https://victim.example/%d", i), "new_lead")
		require.Equal(t, http.StatusCreated, r.status, r.body)
	}
	r := s.subscribe(t, token, "https://VICTIM.example:8443/another", "new_lead")
	require.Equal(t, http.StatusConflict, r.status, r.body)
	require.Equal(t, "too_many_subscriptions_to_host", r.body["code"])
	require.Equal(t, http.StatusOK, s.subscribe(t, token, "https://victim.example/3", "new_lead").status, "an existing subscription is still answered")
	require.Equal(t, http.StatusCreated, s.subscribe(t, token, "https://other.example/1", "new_lead").status, "another host is not affected")
}

// The payment-processor webhook is limited like the rest of the API: 60 a minute per sender IP.
func TestThePaymentWebhookIsRateLimitedPerSenderIP(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	event := stripeEvent("evt_rl", "invoice.paid", map[string]any{"object": "invoice", "customer_email": "nobody@example.com"})
	start := time.Now()
	allowed, limited := 0, reply{}
	for range 70 {
		r := s.postStripe(t, event, "whsec_not_the_secret", time.Now()) // 400, but counted all the same
		if r.status == http.StatusTooManyRequests {
			limited = r
			break
		}
		require.Equal(t, http.StatusBadRequest, r.status, r.body)
		allowed++
	}
	require.Equal(t, http.StatusTooManyRequests, limited.status, "no request was refused")
	require.Equal(t, "rate_limited", limited.body["code"])
	// The bucket holds 60 and refills one a second: the 61st is refused unless a second passed.
	require.GreaterOrEqual(t, allowed, 60)
	require.LessOrEqual(t, allowed, 60+int(time.Since(start).Seconds()))
}

// The signing secret shown at subscribe is not what the table holds, and deliveries are still
// signed with it.
func TestSigningSecretsAreNeverStoredInPlaintext(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_owner_sealed", "sealed@example.com")
	r := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", bearer(token),
		map[string]string{"hookUrl": "https://hooks.example.com/sealed", "event": "new_lead"})
	require.Equal(t, http.StatusCreated, r.status, r.body)
	secret := r.body["secret"].(string)

	var stored string
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT secret FROM subscriptions WHERE id = $1`, r.body["id"]).Scan(&stored))
	require.NotEqual(t, secret, stored)
	require.NotContains(t, stored, strings.TrimPrefix(secret, "whsec_"))
	require.True(t, sealbox.IsSealed(stored), "stored as %q", stored)
}

// Every IPv6 spelling of an internal IPv4 address is refused when it is subscribed.
func TestSubscribeRefusesInternalAddressesInIPv6Forms(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_owner_v6", "v6@example.com")
	for _, host := range []string{
		"[::a00:1]",            // IPv4-compatible 10.0.0.1
		"[::a9fe:a9fe]",        // IPv4-compatible metadata
		"[::ffff:0:a00:1]",     // IPv4-translated 10.0.0.1
		"[::ffff:a9fe:a9fe]",   // IPv4-mapped metadata
		"[64:ff9b::a9fe:a9fe]", // NAT64 metadata
		"[64:ff9b:1::808:808]", // local-use NAT64
		"[2002:c0a8:101::1]",   // 6to4 192.168.1.1
	} {
		r := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", bearer(token),
			map[string]string{"hookUrl": "https://" + host + "/hook", "event": "new_lead"})
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %v", host, r.body)
		require.Equal(t, "hookUrl", r.body["field"], host)
	}
	r := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", bearer(token),
		map[string]string{"hookUrl": "https://[64:ff9b::808:808]/hook", "event": "new_lead"})
	require.Equal(t, http.StatusCreated, r.status, "a NAT64 address of a public receiver is fine: %v", r.body)
}

// Issue 37: the limits were counted and then inserted without a lock, so 40 subscribes at once
// to one host left up to 33 subscriptions (limit 20), and an account reached 111 (limit 100).
func TestConcurrentSubscribesKeepToTheLimits(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	subscribeAll := func(token string, urls []string) map[int]int {
		statuses := map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, url := range urls {
			wg.Go(func() {
				headers := bearer(token)
				headers["X-Forwarded-For"] = fmt.Sprintf("10.37.%d.%d", i/200, i%200+1) // one request per address: no rate limit
				<-start
				r := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", headers, map[string]string{"hookUrl": url, "event": "new_lead"})
				mu.Lock()
				statuses[r.status]++
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		return statuses
	}

	oneHost := s.owner(t, "acc_race_host", "race-host@example.com")
	urls := make([]string, 40)
	for i := range urls {
		urls[i] = fmt.Sprintf("https://victim.example/%d", i)
	}
	statuses := subscribeAll(oneHost, urls)
	require.Equal(t, map[int]int{http.StatusCreated: 20, http.StatusConflict: 20}, statuses)
	require.Equal(t, 20, s.count(t, `SELECT count(*) FROM subscriptions WHERE account_id = 'acc_race_host'`))

	manyHosts := s.owner(t, "acc_race_account", "race-account@example.com")
	urls = make([]string, 120)
	for i := range urls {
		urls[i] = fmt.Sprintf("https://h%d.example/%d", i%8, i) // 15 a host: only the account's limit applies
	}
	statuses = subscribeAll(manyHosts, urls)
	require.Equal(t, map[int]int{http.StatusCreated: 100, http.StatusConflict: 20}, statuses)
	require.Equal(t, 100, s.count(t, `SELECT count(*) FROM subscriptions WHERE account_id = 'acc_race_account'`))
}

// Issue 37: a credential made by an API key outlives the key's deletion, so a key cannot rotate
// the inbound secret (which creates clients and leads); a signed-in owner can.
func TestAnAPIKeyCannotRotateTheInboundSecret(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.owner(t, "acc_owner_keyed", "keyed@example.com")
	keyed := s.issuer.Token(authjwt.Caller{AccountID: "acc_owner_keyed", Email: "keyed@example.com", Plan: "growth", KeyID: "apk_integration"})
	r := s.do(t, http.MethodPost, "/api/ext-webhook/secret/rotate", bearer(keyed), nil)
	require.Equal(t, http.StatusForbidden, r.status, r.body)
	require.Equal(t, "api_key_not_allowed", r.body["code"])
	require.NotContains(t, r.body, "secret")
}
