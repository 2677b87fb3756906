package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/httpx/httpxtest"
	"github.com/bizassist/bizassist/libs/openapitest"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
	"github.com/bizassist/bizassist/services/integrations/api"
	"github.com/bizassist/bizassist/services/integrations/internal/service"
)

const stripeSecret = "whsec_component_test"

// stack is integrations running in-process on a real socket against real PostgreSQL and Redis,
// with tokens from a test issuer.
type stack struct {
	svc      *service.Service
	base     string
	issuer   *jwttest.Issuer
	contract *openapitest.Contract
	db       *platformtest.DatabaseProxy
}

func newStack(t *testing.T) *stack {
	t.Helper()
	return newStackWith(t, nil)
}

// newStackWith is newStack with some settings overridden.
func newStackWith(t *testing.T, overrides map[string]string) *stack {
	t.Helper()
	issuer := jwttest.NewIssuer(t)
	ln, base := platformtest.Listen(t)
	environ := platformtest.Env(t, service.Name, issuer.JWKSURL())
	environ["INTEGRATIONS_DEV_MODE"] = "true" // the receivers are on loopback
	environ["INTEGRATIONS_TARGET_ALLOW_CIDRS"] = "127.0.0.0/8"
	environ["INTEGRATIONS_TARGET_ALLOW_HTTP"] = "true"
	environ["INTEGRATIONS_DELIVERY_POLL_INTERVAL"] = "20ms"
	environ["INTEGRATIONS_RETRY_BASE"] = "10ms"
	environ["INTEGRATIONS_RETRY_CAP"] = "50ms"
	environ["STRIPE_WEBHOOK_SECRET"] = stripeSecret
	sealing := sealboxtest.Config(t)
	environ["ENCRYPTION_KEYS"], environ["ENCRYPTION_KEY_ID"] = sealing.Keys, sealing.KeyID
	for k, v := range overrides {
		environ[k] = v
	}
	db := platformtest.ProxyDatabase(t, environ)
	s := platformtest.Start(t, ln, service.New, environ)
	return &stack{svc: s, base: base, issuer: issuer, contract: openapitest.Load(t, api.OpenAPI), db: db}
}

// publish puts an event from another service on the bus, through our own outbox and relay.
func (s *stack) publish(t *testing.T, typ, accountID string, data any) {
	t.Helper()
	env, err := events.New(context.Background(), typ, accountID, data)
	require.NoError(t, err)
	require.NoError(t, pgkit.InTx(context.Background(), s.svc.Runtime.Pool, func(tx pgx.Tx) error {
		return events.Enqueue(context.Background(), tx, env)
	}))
}

// owner makes an owner account known to integrations and returns a token for it.
func (s *stack) owner(t *testing.T, id, email string) string {
	t.Helper()
	s.publish(t, "account.created", id, map[string]string{
		"accountId": id, "email": email, "plan": "growth", "role": "owner", "businessName": "Acme", "ownerName": "Ann",
	})
	require.Eventually(t, func() bool {
		return s.count(t, `SELECT count(*) FROM webhook_secrets WHERE account_id = $1`, id) == 1
	}, 30*time.Second, 20*time.Millisecond, "the account projection")
	return s.issuer.Token(authjwt.Caller{AccountID: id, Email: email, Plan: "growth"})
}

func (s *stack) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
}

// do sends a request (a string body is sent verbatim), checks the exchange against the contract
// and decodes the answer.
func (s *stack) do(t *testing.T, method, path string, headers map[string]string, body any) reply {
	t.Helper()
	req := openapitest.JSONRequest(t, method, s.base+path, body)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	x := s.contract.Do(t, req)
	return reply{status: x.Status, header: x.Header, body: x.JSON}
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// subscribe subscribes url to event for token's account.
func (s *stack) subscribe(t *testing.T, token, url, event string) reply {
	t.Helper()
	return s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", bearer(token), map[string]string{"hookUrl": url, "event": event})
}

func (s *stack) rotate(t *testing.T, token string) string {
	t.Helper()
	r := s.do(t, http.MethodPost, "/api/ext-webhook/secret/rotate", bearer(token), nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	return r.body["secret"].(string)
}

// TestContractProperties sends every operation the requests the document makes up, valid and not.
func TestContractProperties(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_probe", "probe-owner@example.com")
	secret := s.rotate(t, token)
	s.contract.Probe(t, openapitest.Probe{Base: s.base, Outage: s.db.Outage, Credentials: map[string]func(*http.Request){
		"bearer":    func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) },
		"extSecret": func(r *http.Request) { r.Header.Set("X-Ext-Secret", secret) },
		"stripeSignature": func(r *http.Request) {
			var payload []byte
			if r.GetBody != nil {
				body, err := r.GetBody()
				require.NoError(t, err)
				payload, err = io.ReadAll(body)
				require.NoError(t, err)
			}
			signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: stripeSecret, Timestamp: time.Now()})
			r.Header.Set("Stripe-Signature", signed.Header)
		},
	}})
}

func TestInboundWebhook(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_owner1", "owner1@example.com")
	secret := s.rotate(t, token)
	withSecret := func(secret string) map[string]string { return map[string]string{"X-Ext-Secret": secret} }
	lead := map[string]any{"event": "new_lead", "name": "Jane Doe", "email": "jane@example.com", "source": "zapier"}

	bad := []struct {
		name    string
		headers map[string]string
		body    any
		status  int
		field   string
	}{
		{"no secret", nil, lead, http.StatusUnauthorized, ""},
		{"wrong secret", withSecret("bzext_wrong"), lead, http.StatusUnauthorized, ""},
		{"unknown event", withSecret(secret), map[string]any{"event": "new_order", "name": "x", "email": "a@b.co"}, http.StatusBadRequest, "event"},
		{"missing required field", withSecret(secret), map[string]any{"event": "new_client", "email": "a@b.co"}, http.StatusBadRequest, "businessName"},
		{"non-string field", withSecret(secret), map[string]any{"event": "new_lead", "name": "x", "email": "a@b.co", "phone": 5125550100}, http.StatusBadRequest, "phone"},
		{"extra too long", withSecret(secret), map[string]any{"event": "contact_form", "name": "x", "email": "a@b.co", "budget": strings.Repeat("1", 1001)}, http.StatusBadRequest, "budget"},
		{"malformed JSON", withSecret(secret), `{"event":`, http.StatusBadRequest, ""},
	}
	for _, tc := range bad {
		r := s.do(t, http.MethodPost, "/api/ext-webhook", tc.headers, tc.body)
		httpxtest.RequireRefused(t, r.status, r.body, tc.status, "", tc.field, "%s: %v", tc.name, r.body)
	}

	first := s.do(t, http.MethodPost, "/api/ext-webhook", withSecret(secret), lead)
	require.Equal(t, http.StatusOK, first.status, first.body)
	require.Equal(t, true, first.body["processed"])
	require.Equal(t, "new_lead", first.body["event"])
	require.Equal(t, false, first.body["merged"])
	serviceID := first.body["serviceId"].(string)
	require.Equal(t, leadsevents.LeadID("acc_owner1", "jane@example.com"), serviceID, "the lead's own id, which leads gives the row")

	again := s.do(t, http.MethodPost, "/api/ext-webhook", withSecret(secret), lead)
	require.Equal(t, http.StatusOK, again.status)
	require.Equal(t, false, again.body["processed"], "the same body within the window is a repeat")
	require.Equal(t, true, again.body["duplicate"])
	require.Equal(t, serviceID, again.body["serviceId"])

	keyed := map[string]string{"X-Ext-Secret": secret, "Idempotency-Key": "delivery-42"}
	form := map[string]any{"event": "contact_form", "name": "Jo", "email": "jo@example.com", "message": "Call me"}
	k1 := s.do(t, http.MethodPost, "/api/ext-webhook", keyed, form)
	form["message"] = "Call me, edited by a retrying sender"
	k2 := s.do(t, http.MethodPost, "/api/ext-webhook", keyed, form)
	require.Equal(t, true, k1.body["processed"])
	require.Equal(t, false, k2.body["processed"], "the same idempotency key is a repeat")
	require.Equal(t, k1.body["serviceId"], k2.body["serviceId"])

	// The same person from another form, with extras: accepted, kept, and said to merge.
	merged := s.do(t, http.MethodPost, "/api/ext-webhook", withSecret(secret), map[string]any{"event": "new_lead", "name": "Jane D.",
		"email": "JANE@example.com", "utm_source": "spring", "zip": 78701})
	require.Equal(t, http.StatusOK, merged.status, merged.body)
	require.Equal(t, true, merged.body["processed"])
	require.Equal(t, true, merged.body["merged"])
	require.Equal(t, serviceID, merged.body["serviceId"])
	// Someone else on the same office line is another lead.
	colleague := s.do(t, http.MethodPost, "/api/ext-webhook", withSecret(secret), map[string]any{"event": "new_lead", "name": "Jim",
		"email": "jim@example.com", "phone": "+15125550100"})
	require.Equal(t, false, colleague.body["merged"])

	require.Equal(t, 4, s.count(t, `SELECT count(*) FROM inbox`))
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM inbox WHERE extras = '{"utm_source": "spring", "zip": "78701"}'::jsonb`))
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM outbox WHERE type = 'inbound.new_lead' AND payload->'data'->'extras'->>'zip' = '78701'`))
	require.Equal(t, 3, s.count(t, `SELECT count(*) FROM outbox WHERE type = 'inbound.new_lead'`))
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM outbox WHERE type = 'inbound.contact_form'`))

	rotated := s.rotate(t, token)
	r := s.do(t, http.MethodPost, "/api/ext-webhook", withSecret(secret), lead)
	require.Equal(t, http.StatusUnauthorized, r.status, "a rotated-out secret stops working")
	r = s.do(t, http.MethodPost, "/api/ext-webhook", withSecret(rotated), lead)
	require.Equal(t, http.StatusOK, r.status)
}

// Issue 26 finding 2: a phone that could not be read was answered 200 with nothing said and
// delivered as "". Now the reply names it; readable ones, in any country's form, say nothing.
func TestInboundWebhookWarnsAboutAPhoneItCannotRead(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	secret := s.rotate(t, s.owner(t, "acc_owner_ph", "owner-ph@example.com"))
	for i, c := range []struct {
		phone, country string
		warned         bool
	}{
		{"0049 30 1234567", "", false},
		{"00 44 20 7946 0958", "", false},
		{"+1 (512) 555-0134 ext. 12", "", false},
		{"030 1234567", "DE", false},
		{"07911 123456", "GB", false},
		{"030 1234567", "", true},
		{"n/a", "", true},
	} {
		body := map[string]any{"event": "new_lead", "name": "Jane", "email": fmt.Sprintf("jane%d@example.com", i), "phone": c.phone}
		if c.country != "" {
			body["country"] = c.country
		}
		r := s.do(t, http.MethodPost, "/api/ext-webhook", map[string]string{"X-Ext-Secret": secret}, body)
		require.Equal(t, http.StatusOK, r.status, r.body)
		if !c.warned {
			require.NotContains(t, r.body, "warnings", c.phone)
			continue
		}
		warnings, _ := r.body["warnings"].([]any)
		require.Len(t, warnings, 1, c.phone)
		w := warnings[0].(map[string]any)
		require.Equal(t, "phone", w["field"], c.phone)
		require.Contains(t, w["message"], "kept as given", c.phone)
	}
}

// Issue 26 finding 1: a repeat new_lead was answered "merged" with nothing said of what it changed
// (and leads dropped it). The reply names the fields the repeat changes, as leads applies them.
func TestInboundRepeatSaysWhichFieldsItChanges(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	secret := s.rotate(t, s.owner(t, "acc_owner_rep", "owner-rep@example.com"))
	post := func(body map[string]any) map[string]any {
		body["event"] = "new_lead"
		r := s.do(t, http.MethodPost, "/api/ext-webhook", map[string]string{"X-Ext-Secret": secret}, body)
		require.Equal(t, http.StatusOK, r.status, r.body)
		return r.body
	}
	for _, c := range []struct {
		body    map[string]any
		merged  bool
		changed any
	}{
		{map[string]any{"name": "Ann", "email": "a@x.com"}, false, nil},
		{map[string]any{"name": "Ann", "email": "A@X.COM", "phone": "0049 30 1234567", "notes": "call after 5", "source": "crm"},
			true, []any{"notes", "phone", "source"}},
		{map[string]any{"name": " Ann ", "email": "a@x.com", "phone": "+49 30 1234567"}, true, []any{}},
		{map[string]any{"name": "Ann Lee", "email": "a@x.com", "tier": "gold"}, true, []any{"extras.tier", "name"}},
		// leads stored the first one's source as "webhook".
		{map[string]any{"name": "Bo", "email": "bo@x.com"}, false, nil},
		{map[string]any{"name": "Bo", "email": "bo@x.com", "source": "webhook"}, true, []any{}},
	} {
		got := post(c.body)
		require.Equal(t, c.merged, got["merged"], c.body)
		require.Equal(t, c.changed, got["changed"], c.body)
	}
}

func TestSamplesArePublic(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	r := s.do(t, http.MethodGet, "/api/ext-webhook/sample", nil, nil)
	require.Equal(t, http.StatusOK, r.status)
	samples := r.body["samples"].(map[string]any)
	require.Len(t, samples, 3)
	require.Equal(t, "new_client", samples["new_client"].(map[string]any)["event"])
}

func TestSubscribeDeliverListReplayUnsubscribe(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_owner2", "owner2@example.com")

	var mu sync.Mutex
	var ids []string
	var bodies []map[string]any
	var verifier *standardwebhooks.Webhook
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		payload, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if err := verifier.Verify(payload, r.Header); err != nil {
			t.Errorf("signature: %v", err)
		}
		var b map[string]any
		_ = json.Unmarshal(payload, &b)
		ids = append(ids, r.Header.Get("webhook-id"))
		bodies = append(bodies, b)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(receiver.Close)

	for _, tc := range []struct {
		name    string
		headers map[string]string
		body    any
		status  int
		field   string
	}{
		{"no token", nil, map[string]string{"hookUrl": receiver.URL, "event": "new_lead"}, http.StatusUnauthorized, ""},
		{"malformed hookUrl", bearer(token), map[string]string{"hookUrl": "not a url", "event": "new_lead"}, http.StatusBadRequest, "hookUrl"},
		{"unknown event type", bearer(token), map[string]string{"hookUrl": receiver.URL, "event": "lead.deleted"}, http.StatusBadRequest, "event"},
		{"metadata address", bearer(token), map[string]string{"hookUrl": "http://169.254.169.254/", "event": "new_lead"}, http.StatusBadRequest, "hookUrl"},
		{"missing hookUrl", bearer(token), map[string]string{"event": "new_lead"}, http.StatusBadRequest, "hookUrl"},
	} {
		r := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", tc.headers, tc.body)
		require.Equal(t, tc.status, r.status, "%s: %v", tc.name, r.body)
		if tc.field != "" {
			require.Equal(t, tc.field, r.body["field"], tc.name)
		}
	}

	sub := s.subscribe(t, token, receiver.URL+"/hook", "new_lead")
	require.Equal(t, http.StatusCreated, sub.status, sub.body)
	hookID := sub.body["id"].(string)
	wh, err := standardwebhooks.NewWebhook(sub.body["secret"].(string))
	require.NoError(t, err)
	mu.Lock()
	verifier = wh
	mu.Unlock()

	list := s.do(t, http.MethodGet, "/api/ext-webhook/subscriptions", bearer(token), nil)
	require.Equal(t, http.StatusOK, list.status)
	require.Len(t, list.body["subscriptions"], 1)

	s.publish(t, "lead.written", "acc_owner2", map[string]string{
		"leadId": "lead_1", "name": "Jane Doe", "email": "jane@example.com", "phone": "+15125550100",
		"source": "inbound", "businessName": "Acme", "timestamp": "2026-01-02T03:04:05.000Z",
	})
	s.publish(t, "lead.written", "acc_someone_else", map[string]string{"leadId": "lead_2", "name": "X", "email": "x@example.com"})
	received := func() int { mu.Lock(); defer mu.Unlock(); return len(ids) }
	require.Eventually(t, func() bool { return received() == 1 }, 30*time.Second, 20*time.Millisecond, "the delivery")
	mu.Lock()
	require.Equal(t, map[string]any{
		"event": "new_lead", "name": "Jane Doe", "email": "jane@example.com", "phone": "+15125550100",
		"source": "inbound", "serviceId": "lead_1", "timestamp": "2026-01-02T03:04:05.000Z",
	}, bodies[0])
	deliveryID := ids[0]
	mu.Unlock()

	var attempts reply
	require.Eventually(t, func() bool {
		attempts = s.do(t, http.MethodGet, "/api/ext-webhook/subscriptions/"+hookID+"/deliveries", bearer(token), nil)
		return len(attempts.body["attempts"].([]any)) == 1
	}, 30*time.Second, 20*time.Millisecond, "the attempt log")
	first := attempts.body["attempts"].([]any)[0].(map[string]any)
	require.Equal(t, deliveryID, first["deliveryId"])
	require.EqualValues(t, 200, first["statusCode"])

	replay := s.do(t, http.MethodPost, "/api/ext-webhook/deliveries/"+deliveryID+"/replay", bearer(token), nil)
	require.Equal(t, http.StatusAccepted, replay.status, replay.body)
	require.Eventually(t, func() bool { return received() == 2 }, 30*time.Second, 20*time.Millisecond, "the replay")
	mu.Lock()
	require.Equal(t, deliveryID, ids[1], "a replay keeps the webhook-id so receivers can deduplicate")
	mu.Unlock()

	other := s.issuer.Token(authjwt.Caller{AccountID: "acc_other", Email: "o@example.com", Plan: "growth"})
	require.Equal(t, http.StatusNotFound, s.do(t, http.MethodDelete, "/api/ext-webhook/subscriptions/"+hookID, bearer(other), nil).status,
		"another account cannot see or delete the subscription")
	require.Equal(t, http.StatusNotFound, s.do(t, http.MethodPost, "/api/ext-webhook/deliveries/"+deliveryID+"/replay", bearer(other), nil).status)
	require.Equal(t, http.StatusOK, s.do(t, http.MethodDelete, "/api/ext-webhook/subscriptions/"+hookID, bearer(token), nil).status)
	require.Equal(t, http.StatusNotFound, s.do(t, http.MethodDelete, "/api/ext-webhook/subscriptions/"+hookID, bearer(token), nil).status)
}

// Every /api route the service registers is in api/openapi.yaml with an operationId, every
// documented operation is registered, and each one's documented security is what it does.
func TestRoutesMatchTheContract(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	platformtest.WaitReady(t, s.base)
	s.contract.CheckRoutes(t, s.svc.Handler())
}

// A CRM syncing a few hundred records from one address is not refused after 60: inbound events
// are metered by their secret's account (inboundlimit.Account, burst 500), not by the general
// per-address limit; requests without a valid secret still are, per address (60 a minute).
func TestInboundBurstsAreMeteredPerAccount(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	secret := s.rotate(t, s.owner(t, "acc_burst", "burst@example.com"))
	crm := map[string]string{"X-Ext-Secret": secret, "X-Forwarded-For": "203.0.113.40"}
	for i := range 200 {
		r := s.do(t, http.MethodPost, "/api/ext-webhook", crm,
			map[string]any{"event": "new_lead", "name": "Synced Lead", "email": fmt.Sprintf("sync-%d@example.com", i)})
		require.Equal(t, http.StatusOK, r.status, "event %d of the sync: %v", i+1, r.body)
	}
	require.Equal(t, 200, s.count(t, `SELECT count(*) FROM inbox WHERE account_id = 'acc_burst'`))

	guesser := map[string]string{"X-Ext-Secret": "bzext_guess", "X-Forwarded-For": "203.0.113.41"}
	lead := map[string]any{"event": "new_lead", "name": "x", "email": "x@example.com"}
	for i := range 60 {
		r := s.do(t, http.MethodPost, "/api/ext-webhook", guesser, lead)
		require.Equal(t, http.StatusUnauthorized, r.status, "guess %d", i+1)
	}
	r := s.do(t, http.MethodPost, "/api/ext-webhook", guesser, lead)
	require.Equal(t, http.StatusTooManyRequests, r.status, r.body)
	require.NotEmpty(t, r.header.Get("Retry-After"))
	require.Equal(t, http.StatusOK, s.do(t, http.MethodPost, "/api/ext-webhook", crm, lead).status,
		"another address's guesses cost the sender nothing")
}
