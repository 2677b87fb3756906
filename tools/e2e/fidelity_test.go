package e2e

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v85/webhook"
)

// Issue 14, integrator fidelity: each test is what a real sender or client does, through the
// ingress. Source addresses: 127.0.14.x.

// accountOf is the account id a token was issued for (its sub claim), as an integrator reads it
// to set client_reference_id on a checkout.
func accountOf(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	require.Len(t, parts, 3)
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var claims struct{ Sub string }
	require.NoError(t, json.Unmarshal(raw, &claims))
	require.NotEmpty(t, claims.Sub)
	return claims.Sub
}

func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

// sheetLead is the lead with email on the caller's sheet, once it is there.
func sheetLead(t *testing.T, c *Client, token, email string) map[string]any {
	t.Helper()
	var found map[string]any
	eventually(t, "lead "+email+" on the sheet", func() bool {
		r := c.Do(t, http.MethodGet, "/api/leads?limit=100", token, nil).Expect(t, http.StatusOK)
		leads, _ := r.JSON["leads"].([]any)
		for _, l := range leads {
			if lead, _ := l.(map[string]any); strings.EqualFold(lead["email"].(string), email) {
				found = lead
				return true
			}
		}
		return false
	})
	return found
}

// Item 1: the finder's results go to the batch as they are.
func TestFidelityFinderOutputFeedsTheBatch(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.14.1")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))

	found := c.Do(t, http.MethodPost, "/api/lead-finder", tok, map[string]any{"industry": "plumbing", "limit": 3}).Expect(t, http.StatusOK)
	leads, _ := found.JSON["leads"].([]any)
	require.NotEmpty(t, leads)
	require.Contains(t, leads[0], "ownerName", "the finder's Lead object, fields and all")

	r := c.Do(t, http.MethodPost, "/api/lead-quality-batch", tok, map[string]any{"leads": leads}).Expect(t, http.StatusOK)
	require.EqualValues(t, len(leads), r.JSON["scored"])
	results, _ := r.JSON["results"].([]any)
	for i, l := range leads {
		require.Equal(t, l.(map[string]any)["email"], results[i].(map[string]any)["email"])
	}

	// The request object itself stays strict.
	bad := c.Do(t, http.MethodPost, "/api/lead-quality-batch", tok, map[string]any{"leads": leads, "lead": leads[0]}).Expect(t, http.StatusBadRequest)
	require.Equal(t, "lead", bad.JSON["field"])

	first := leads[0].(map[string]any)
	q := url.Values{}
	for k, v := range first {
		q.Set(k, strings.TrimSpace(strings.Trim(jsonText(t, v), `"`)))
	}
	c.Do(t, http.MethodGet, "/api/lead-qualify?"+q.Encode(), tok, nil).Expect(t, http.StatusOK)
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// Item 2: a form with five fields beyond spec 2.11 is accepted, and they show with the lead.
func TestFidelityInboundExtrasAreKeptAndShown(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.14.2")
	token := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	email := uniqueEmail(t)
	r := c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]any{
		"event": "new_lead", "name": "Fiona Form", "email": email, "source": "webflow", "notes": "wants a quote",
		"utm_source": "newsletter", "utm_campaign": "spring", "company_size": "11-50", "zip": 78701, "consent": true,
	}, extSecret(s.Get(t, "EXT_SECRET"))).Expect(t, http.StatusOK)
	require.Equal(t, true, r.JSON["processed"])

	lead := sheetLead(t, c, token, email)
	require.Equal(t, "wants a quote", lead["notes"])
	require.Equal(t, map[string]any{"utm_source": "newsletter", "utm_campaign": "spring", "company_size": "11-50",
		"zip": "78701", "consent": "true"}, lead["extras"])
}

// Item 3: one id for one lead in the reply, the sheet and new_lead; the same email merges and
// says so; a colleague on the same phone line is another lead.
func TestFidelityOneLeadOneID(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.14.3")
	token := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	secret := extSecret(s.Get(t, "EXT_SECRET"))

	rc := newHookReceiver(t, s)
	sub := c.Do(t, http.MethodPost, "/api/ext-webhook/subscribe", token,
		map[string]string{"hookUrl": rc.srv.URL + "/fidelity", "event": "new_lead"}).Expect(t, http.StatusCreated)
	hookID := sub.JSON["id"].(string)
	t.Cleanup(func() {
		s.Client(t, "127.0.14.9").Do(t, http.MethodDelete, "/api/ext-webhook/subscriptions/"+hookID, token, nil).Expect(t, http.StatusOK)
	})
	rc.trust(t, sub.JSON["secret"].(string))

	email := uniqueEmail(t)
	phone := "+15125550" + strings.Map(func(r rune) rune { return '0' + (r % 10) }, randomHex(t)[:3])
	first := c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]any{
		"event": "new_lead", "name": "Olivia Office", "email": email, "phone": phone,
	}, secret).Expect(t, http.StatusOK)
	id, _ := first.JSON["serviceId"].(string)
	require.Regexp(t, `^lead_[0-9A-HJKMNP-TV-Z]{26}$`, id, "a new_lead is answered with its lead's id: %s", first.Raw)
	require.Equal(t, false, first.JSON["merged"])

	require.Equal(t, id, sheetLead(t, c, token, email)["id"], "the sheet names the lead by the id the sender got")
	var delivered map[string]any
	eventually(t, "the new_lead delivery", func() bool {
		var ok bool
		delivered, _, ok = rc.find("email", email)
		return ok
	})
	require.Equal(t, id, delivered["serviceId"], "new_lead names it the same")

	again := c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]any{
		"event": "new_lead", "name": "Olivia O.", "email": strings.ToUpper(email), "source": "chatbot",
	}, secret).Expect(t, http.StatusOK)
	require.Equal(t, true, again.JSON["merged"], "the same email is the same lead, and the reply says so")
	require.Equal(t, id, again.JSON["serviceId"])

	colleague := uniqueEmail(t)
	other := c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]any{
		"event": "new_lead", "name": "Oscar Office", "email": colleague, "phone": phone,
	}, secret).Expect(t, http.StatusOK)
	require.Equal(t, false, other.JSON["merged"])
	require.NotEqual(t, id, other.JSON["serviceId"])
	require.Equal(t, other.JSON["serviceId"], sheetLead(t, c, token, colleague)["id"], "a shared phone line does not merge two people")
}

// Item 4: a signed subscription.deleted without an expanded customer reaches a subscriber with
// customer_email (from the checkout's customer link) and the processor's object unchanged.
func TestFidelityPaymentEventsAreForwardedInTheProcessorsShape(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.14.4")
	// The free demo account: a cancelled subscription returns an account to free, which it is.
	email := s.Get(t, "DEMO_FREE_EMAIL")
	token := s.Token(t, email)
	whsec := s.Get(t, "STRIPE_WEBHOOK_SECRET")

	rc := newHookReceiver(t, s)
	sub := c.Do(t, http.MethodPost, "/api/ext-webhook/subscribe", token,
		map[string]string{"hookUrl": rc.srv.URL + "/payments", "event": "customer.subscription.deleted"}).Expect(t, http.StatusCreated)
	hookID := sub.JSON["id"].(string)
	t.Cleanup(func() {
		s.Client(t, "127.0.14.9").Do(t, http.MethodDelete, "/api/ext-webhook/subscriptions/"+hookID, token, nil).Expect(t, http.StatusOK)
	})
	rc.trust(t, sub.JSON["secret"].(string))

	post := func(event map[string]any) *Response {
		payload, err := json.Marshal(event)
		require.NoError(t, err)
		signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: whsec, Timestamp: time.Now()})
		return c.Do(t, http.MethodPost, "/api/payments/stripe/webhook", "", payload,
			http.Header{"Stripe-Signature": {signed.Header}}).Expect(t, http.StatusOK)
	}
	n := randomHex(t)
	customer := "cus_e2e" + n
	checkout := post(map[string]any{"id": "evt_e2e_checkout_" + n, "object": "event", "type": "checkout.session.completed",
		"api_version": "2024-06-20", "created": time.Now().Unix(), "data": map[string]any{"object": map[string]any{
			"id": "cs_e2e" + n, "object": "checkout.session", "customer": customer, "client_reference_id": accountOf(t, token),
			"subscription": "sub_e2e" + n, "amount_total": 4900, "status": "complete"}}})
	require.Equal(t, true, checkout.JSON["matched"], "%s", checkout.Raw)

	deleted := map[string]any{"id": "evt_e2e_deleted_" + n, "object": "event", "type": "customer.subscription.deleted",
		"api_version": "2024-06-20", "created": time.Now().Unix(), "livemode": false, "pending_webhooks": 1,
		"data": map[string]any{"object": map[string]any{
			"id": "sub_e2e" + n, "object": "subscription", "customer": customer, "status": "canceled",
			"ended_at": 1767322800, "cancel_at_period_end": false, "canceled_at": 1767322800, "metadata": map[string]any{},
		}}}
	r := post(deleted)
	require.EqualValues(t, 1, r.JSON["forwarded"], "%s", r.Raw)

	var got map[string]any
	eventually(t, "the forwarded customer.subscription.deleted", func() bool {
		var ok bool
		got, _, ok = rc.find("id", deleted["id"].(string))
		return ok
	})
	require.Equal(t, "customer.subscription.deleted", got["event"])
	require.Equal(t, "sub_e2e"+n, got["subscription_id"])
	require.True(t, strings.EqualFold(email, got["customer_email"].(string)), "customer_email from the account: %v", got)
	require.Equal(t, float64(1767322800), got["ended_at"], "the processor's own type: Unix seconds")
	original, err := json.Marshal(got["processor_event"])
	require.NoError(t, err)
	want, err := json.Marshal(deleted)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(original), "the processor's event object, unchanged")
}

// Item 5: a chat turn plus the spec's own log-usage example (chat / send_message) is one chat.
func TestFidelityAChatIsCountedOnce(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.14.5")
	tok := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	before := chatUsed(t, c, tok)
	chatTurn(t, c, tok, map[string]any{"message": "hello"})
	c.Do(t, http.MethodPost, "/api/log-usage", tok, map[string]any{"feature": "chat", "action": "send_message"}).Expect(t, http.StatusOK)
	require.Equal(t, before+1, chatUsed(t, c, tok), "pql-check counts the chat the assistant enforced, once")
}

// Item 6: a session id of the client's choosing starts a session and keeps its context.
func TestFidelityClientChosenSessionKeepsContext(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.14.6")
	tok := s.Token(t, s.Get(t, "DEMO_FULL_STACK_EMAIL"))
	id := "crm:contact/" + randomHex(t) + "/" + strings.Repeat("x", 80)
	first := c.Do(t, http.MethodPost, "/api/chat", tok, map[string]any{"message": "Find plumbers in Texas", "sessionId": id}).Expect(t, http.StatusOK)
	require.Equal(t, id, first.JSON["sessionId"])
	second := c.Do(t, http.MethodPost, "/api/chat", tok, map[string]any{"message": "and in California?", "sessionId": id}).Expect(t, http.StatusOK)
	require.Equal(t, id, second.JSON["sessionId"])
	require.Contains(t, second.JSON["reply"], "plumbing", "the industry comes from the first turn")
	require.Contains(t, second.JSON["reply"], "California")
}

// Item 7: growth's lead_scoring and its batch allowance say the same, with no magic number.
func TestFidelityPlanAnswersAgree(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.14.7")
	tok := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	p := c.Do(t, http.MethodGet, "/api/pql-check?feature=lead_scoring", tok, nil).Expect(t, http.StatusOK)
	scoring := p.JSON["features"].(map[string]any)["lead_scoring"].(map[string]any)
	b := c.Do(t, http.MethodPost, "/api/lead-quality-batch", tok, batch(1, "fidelity")).Expect(t, http.StatusOK)
	require.Equal(t, true, scoring["unlimited"])
	require.Equal(t, true, b.JSON["unlimited"], "the batch agrees with pql-check")
	require.Contains(t, scoring, "limit")
	require.Nil(t, scoring["limit"], "unlimited is not a number")
	require.Contains(t, b.JSON, "remaining")
	require.Nil(t, b.JSON["remaining"], "unlimited is not a number")
}

// Item 9: responses name the API version, and a version this server does not have is refused.
func TestFidelityResponsesCarryTheAPIVersion(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.14.8")
	tok := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	for _, path := range []string{"/api/pql-check", "/api/leads", "/api/ext-webhook/sample"} {
		r := c.Do(t, http.MethodGet, path, tok, nil).Expect(t, http.StatusOK)
		require.Regexp(t, `^\d{4}-\d\d-\d\d$`, r.Header.Get("API-Version"), path)
	}
	current := c.Do(t, http.MethodGet, "/api/pql-check", tok, nil).Header.Get("API-Version")
	c.Do(t, http.MethodGet, "/api/pql-check", tok, nil, http.Header{"API-Version": {current}}).Expect(t, http.StatusOK)
	r := c.Do(t, http.MethodGet, "/api/pql-check", tok, nil, http.Header{"API-Version": {"2099-01-01"}}).Expect(t, http.StatusBadRequest)
	require.Equal(t, "unsupported_api_version", r.JSON["code"])
}
