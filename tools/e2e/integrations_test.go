package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"
)

// Integrations through the ingress. Source addresses: 127.0.5.x.

var serviceIDPattern = regexp.MustCompile(`^svc_[0-9A-HJKMNP-TV-Z]{26}$`)

func extSecret(secret string) http.Header { return http.Header{"X-Ext-Secret": {secret}} }

func uniqueEmail(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return "e2e-" + hex.EncodeToString(b) + "@example.com"
}

// hookReceiver is an integrator's endpoint on loopback that keeps every delivery after checking
// its signature with the Standard Webhooks reference library.
type hookReceiver struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	wh      *standardwebhooks.Webhook
	got     []map[string]any
	headers []http.Header
}

func newHookReceiver(t *testing.T, s *Stack) *hookReceiver {
	rc := &hookReceiver{t: t}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		payload, err := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if err != nil || rc.wh == nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if err := rc.wh.Verify(payload, r.Header); err != nil {
			rc.t.Errorf("delivery does not verify: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var body map[string]any
		if err := json.Unmarshal(payload, &body); err != nil {
			rc.t.Errorf("delivery is not JSON: %s", payload)
		}
		rc.got = append(rc.got, body)
		rc.headers = append(rc.headers, r.Header.Clone())
		w.WriteHeader(http.StatusNoContent)
	}))
	rc.srv.Listener = s.hookListener(t)
	rc.srv.Start()
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *hookReceiver) trust(t *testing.T, secret string) {
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	rc.mu.Lock()
	rc.wh = wh
	rc.mu.Unlock()
}

// find returns the delivery whose field has value, if one has arrived.
func (rc *hookReceiver) find(field, value string) (map[string]any, http.Header, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for i, b := range rc.got {
		if b[field] == value {
			return b, rc.headers[i], true
		}
	}
	return nil, nil, false
}

// eventually polls cond every 500 ms for up to 30 s (60 calls at most, within a source
// address's per-minute budget): other services are asynchronous.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !within(30*time.Second, 500*time.Millisecond, cond) {
		t.Fatalf("timed out after 30s waiting for %s", what)
	}
}

// within polls cond every interval until it holds or d has passed, and says whether it held.
func within(d, every time.Duration, cond func() bool) bool {
	tick := time.NewTicker(every)
	defer tick.Stop()
	deadline := time.After(d)
	for !cond() {
		select {
		case <-deadline:
			return false
		case <-tick.C:
		}
	}
	return true
}

func TestInboundLeadReachesTheSheetAndASignedSubscriber(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.5.1")
	token := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))

	rc := newHookReceiver(t, s)
	sub := c.Do(t, http.MethodPost, "/api/ext-webhook/subscribe", token,
		map[string]string{"hookUrl": rc.srv.URL + "/bizassist", "event": "new_lead"}).Expect(t, http.StatusCreated)
	hookID, _ := sub.JSON["id"].(string)
	require.Regexp(t, `^hook_`, hookID)
	t.Cleanup(func() { // from its own address, so the polling below cannot rate-limit it away
		s.Client(t, "127.0.5.6").Do(t, http.MethodDelete, "/api/ext-webhook/subscriptions/"+hookID, token, nil).Expect(t, http.StatusOK)
	})
	rc.trust(t, sub.JSON["secret"].(string))

	// No phone: the sheet keeps one lead per phone number, and this lead must be new every run.
	email := uniqueEmail(t)
	r := c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]string{
		"event": "new_lead", "name": "Erin Endtoend", "email": email, "source": "e2e",
	}, extSecret(s.Get(t, "EXT_SECRET"))).Expect(t, http.StatusOK)
	require.Equal(t, true, r.JSON["ok"])
	require.Equal(t, "new_lead", r.JSON["event"])
	require.Equal(t, true, r.JSON["processed"])
	require.Regexp(t, `^lead_[0-9A-HJKMNP-TV-Z]{26}$`, r.JSON["serviceId"], "a new_lead is known by its lead's id")

	var leadID string
	eventually(t, "the lead in the growth account's sheet", func() bool {
		sheet := c.Do(t, http.MethodGet, "/api/leads?limit=100", token, nil).Expect(t, http.StatusOK)
		leads, _ := sheet.JSON["leads"].([]any)
		for _, l := range leads {
			if lead, _ := l.(map[string]any); lead["email"] == email {
				leadID, _ = lead["id"].(string)
				return true
			}
		}
		return false
	})

	var body map[string]any
	var headers http.Header
	eventually(t, "the signed new_lead delivery", func() bool {
		var ok bool
		body, headers, ok = rc.find("email", email)
		return ok
	})
	require.Equal(t, "new_lead", body["event"])
	require.Equal(t, "Erin Endtoend", body["name"])
	require.Equal(t, "e2e", body["source"])
	require.Equal(t, leadID, body["serviceId"], "serviceId is the id of the lead in the sheet")
	require.NotEmpty(t, body["timestamp"])
	require.Regexp(t, `^msg_`, headers.Get("webhook-id"))
	require.Regexp(t, `^v1,`, headers.Get("webhook-signature"))

	eventually(t, "the attempt in the delivery log", func() bool {
		log := c.Do(t, http.MethodGet, "/api/ext-webhook/subscriptions/"+hookID+"/deliveries", token, nil).Expect(t, http.StatusOK)
		attempts, _ := log.JSON["attempts"].([]any)
		for _, a := range attempts {
			if m, _ := a.(map[string]any); m["deliveryId"] == headers.Get("webhook-id") && m["statusCode"] == float64(http.StatusNoContent) {
				return true
			}
		}
		return false
	})
}

func TestInboundWebhookRefusesBadInput(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.5.2")
	secret := s.Get(t, "EXT_SECRET")
	lead := map[string]string{"event": "new_lead", "name": "Nobody", "email": uniqueEmail(t)}

	c.Do(t, http.MethodPost, "/api/ext-webhook", "", lead).Expect(t, http.StatusUnauthorized)
	r := c.Do(t, http.MethodPost, "/api/ext-webhook", "", lead, extSecret("bzext_not-the-secret")).Expect(t, http.StatusUnauthorized)
	require.Equal(t, false, r.JSON["ok"])
	require.NotEmpty(t, r.JSON["error"])

	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"unknown event", map[string]any{"event": "new_order", "name": "x", "email": "x@example.com"}, "event"},
		{"missing required field", map[string]any{"event": "new_client", "email": "x@example.com"}, "businessName"},
		{"non-string field", map[string]any{"event": "contact_form", "name": "x", "email": "x@example.com", "phone": 5125550100}, "phone"},
		{"extra field too long", map[string]any{"event": "new_lead", "name": "x", "email": "x@example.com", "score": strings.Repeat("9", 1001)}, "score"},
	} {
		r := c.Do(t, http.MethodPost, "/api/ext-webhook", "", tc.body, extSecret(secret)).Expect(t, http.StatusBadRequest)
		require.Equal(t, tc.field, r.JSON["field"], tc.name)
		require.Equal(t, false, r.JSON["ok"], tc.name)
	}
}

func TestRepeatedInboundDeliveryCreatesNothingNew(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.5.3")
	headers := extSecret(s.Get(t, "EXT_SECRET"))
	headers.Set("webhook-id", "e2e-"+uniqueEmail(t))
	form := map[string]string{"event": "contact_form", "name": "Repeat Rita", "email": uniqueEmail(t), "message": "Twice"}
	first := c.Do(t, http.MethodPost, "/api/ext-webhook", "", form, headers).Expect(t, http.StatusOK)
	again := c.Do(t, http.MethodPost, "/api/ext-webhook", "", form, headers).Expect(t, http.StatusOK)
	require.Equal(t, true, first.JSON["processed"])
	require.Regexp(t, serviceIDPattern, first.JSON["serviceId"], "a contact form is known by its inbox record")
	require.Equal(t, false, again.JSON["processed"])
	require.Equal(t, true, again.JSON["duplicate"])
	require.Equal(t, first.JSON["serviceId"], again.JSON["serviceId"])
}

func TestSubscribeRefusesBadHooks(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.5.4")
	token := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	c.Do(t, http.MethodPost, "/api/ext-webhook/subscribe", "", map[string]string{"hookUrl": "https://example.com/h", "event": "new_lead"}).
		Expect(t, http.StatusUnauthorized)
	for _, tc := range []struct {
		name, hookURL, event, field string
	}{
		{"malformed hookUrl", "example.com/hooks", "new_lead", "hookUrl"},
		{"metadata address", "http://169.254.169.254/latest/meta-data", "new_lead", "hookUrl"},
		// IPv6 spellings of private IPv4 addresses (the local stack allows only 127.0.0.0/8).
		{"IPv4-compatible private address", "http://[::a00:1]/h", "new_lead", "hookUrl"},
		{"IPv4-translated private address", "http://[::ffff:0:a00:1]/h", "new_lead", "hookUrl"},
		{"NAT64 metadata address", "http://[64:ff9b::a9fe:a9fe]/h", "new_lead", "hookUrl"},
		{"unknown outbound event type", "https://example.com/h", "lead.deleted", "event"},
	} {
		r := c.Do(t, http.MethodPost, "/api/ext-webhook/subscribe", token, map[string]string{"hookUrl": tc.hookURL, "event": tc.event}).
			Expect(t, http.StatusBadRequest)
		require.Equal(t, tc.field, r.JSON["field"], tc.name)
	}
}

func TestSamplesArePublic(t *testing.T) {
	s := UseStack(t)
	r := s.Client(t, "127.0.5.5").Do(t, http.MethodGet, "/api/ext-webhook/sample", "", nil).Expect(t, http.StatusOK)
	samples, _ := r.JSON["samples"].(map[string]any)
	for _, event := range []string{"new_lead", "new_client", "contact_form"} {
		sample, _ := samples[event].(map[string]any)
		require.Equal(t, event, sample["event"])
		require.NotEmpty(t, sample["email"])
	}
}
