package service_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// postStripe sends a Stripe event signed the way Stripe signs it, at the given time.
func (s *stack) postStripe(t *testing.T, event map[string]any, secret string, at time.Time) reply {
	t.Helper()
	payload, err := json.Marshal(event)
	require.NoError(t, err)
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at})
	req, err := http.NewRequest(http.MethodPost, s.base+"/api/payments/stripe/webhook", bytes.NewReader(payload))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", signed.Header)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	s.contract.Check(t, req, resp, data)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), string(data))
	return reply{status: resp.StatusCode, body: m}
}

// roundTrip is v as a receiver decodes it.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

func stripeEvent(id, typ string, object map[string]any) map[string]any {
	return map[string]any{"id": id, "object": "event", "type": typ, "api_version": "2020-08-27",
		"created": time.Now().Unix(), "data": map[string]any{"object": object}}
}

func TestStripeEventsAreVerifiedMatchedPublishedAndForwarded(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_payer", "payer@example.com")

	var mu sync.Mutex
	var got []map[string]any
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b map[string]any
		_ = json.NewDecoder(r.Body).Decode(&b)
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	for _, event := range []string{"invoice.payment_failed", "customer.subscription.deleted"} {
		sub := s.subscribe(t, token, receiver.URL, event)
		require.Equal(t, http.StatusCreated, sub.status, sub.body)
	}

	checkout := stripeEvent("evt_checkout_1", "checkout.session.completed", map[string]any{
		"id": "cs_1", "object": "checkout.session", "customer": "cus_1", "customer_email": "Payer@Example.com", "client_reference_id": "acc_payer",
		"amount_total": 4900, "subscription": "sub_1", "status": "complete", "metadata": map[string]string{"plan": "growth"},
	})
	r := s.postStripe(t, checkout, stripeSecret, time.Now())
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, true, r.body["matched"])
	require.EqualValues(t, 0, r.body["forwarded"], "nobody subscribed to checkout events")

	again := s.postStripe(t, checkout, stripeSecret, time.Now())
	require.Equal(t, true, again.body["duplicate"], "Stripe retries are deduplicated by event id")

	// The invoice carries only the customer id, linked to the account at checkout; customer_email
	// comes from that link, the processor's object travels unchanged.
	failed := stripeEvent("evt_invoice_1", "invoice.payment_failed", map[string]any{
		"id": "in_1", "object": "invoice", "customer": "cus_1", "amount_due": 4900, "status": "open",
		"subscription": "sub_1", "next_payment_attempt": 1767322800,
	})
	r = s.postStripe(t, failed, stripeSecret, time.Now())
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.EqualValues(t, 1, r.body["forwarded"])
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 }, 30*time.Second, 20*time.Millisecond, "the forwarded payment event")
	mu.Lock()
	original := got[0]["processor_event"]
	require.Equal(t, map[string]any{
		"event": "invoice.payment_failed", "id": "evt_invoice_1", "customer_email": "payer@example.com", "plan": nil, "status": "open",
		"amount": nil, "amount_due": float64(4900), "subscription_id": "sub_1", "invoice_id": "in_1", "cancel_at_period_end": nil,
		"ended_at": nil, "next_attempt": float64(1767322800), "processor_event": original,
	}, got[0])
	require.Equal(t, roundTrip(t, failed), original)
	mu.Unlock()

	// An email typed at another checkout matches, but never links that customer to the account:
	// its later events are not the account's.
	typed := stripeEvent("evt_checkout_2", "checkout.session.completed", map[string]any{
		"id": "cs_2", "object": "checkout.session", "customer": "cus_other", "customer_email": "payer@example.com", "status": "complete",
	})
	require.Equal(t, true, s.postStripe(t, typed, stripeSecret, time.Now()).body["matched"])
	cancelled := stripeEvent("evt_sub_deleted_other", "customer.subscription.deleted", map[string]any{
		"id": "sub_other", "object": "subscription", "customer": "cus_other", "status": "canceled", "ended_at": 1767322800,
	})
	require.Equal(t, false, s.postStripe(t, cancelled, stripeSecret, time.Now()).body["matched"])

	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM outbox WHERE type = 'payment.checkout.session.completed'
		AND account_id = 'acc_payer' AND payload->'data'->>'plan' = 'growth' AND payload->'data'->>'customerEmail' = 'payer@example.com'`))
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM outbox WHERE type = 'payment.invoice.payment_failed'`))

	unknown := stripeEvent("evt_other_1", "invoice.payment_failed", map[string]any{"id": "in_2", "object": "invoice", "customer_email": "stranger@example.com"})
	r = s.postStripe(t, unknown, stripeSecret, time.Now())
	require.Equal(t, http.StatusOK, r.status, "an unknown customer is acknowledged so Stripe stops retrying")
	require.Equal(t, false, r.body["matched"])

	for name, tc := range map[string]struct {
		secret string
		at     time.Time
	}{
		"wrong secret":          {"whsec_forged", time.Now()},
		"outside the tolerance": {stripeSecret, time.Now().Add(-6 * time.Minute)},
		"dated in the future":   {stripeSecret, time.Now().Add(24 * time.Hour)},
		"just past the bound":   {stripeSecret, time.Now().Add(6 * time.Minute)},
	} {
		r := s.postStripe(t, stripeEvent("evt_bad", "invoice.payment_failed", map[string]any{"id": "in_3"}), tc.secret, tc.at)
		require.Equal(t, http.StatusBadRequest, r.status, name)
		require.Equal(t, "invalid_signature", r.body["code"], name)
		require.Equal(t, "Stripe-Signature does not verify", r.body["error"], "%s: the library's reason is only logged", name)
	}
	require.Zero(t, s.count(t, `SELECT count(*) FROM payment_events WHERE id = 'evt_bad'`))
}

// Events in the processor's current API shapes (stripe-go's APIVersion): an invoice names its
// subscription under parent.subscription_details, and every forwarded event names the account's
// own email, whatever billing email the processor's object carries.
func TestCurrentAPIEventsForwardTheSubscriptionAndTheAccountsEmail(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_current", "owner@example.com")
	var mu sync.Mutex
	got := map[string]map[string]any{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b map[string]any
		_ = json.NewDecoder(r.Body).Decode(&b)
		mu.Lock()
		got[b["event"].(string)] = b
		mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	types := []string{"checkout.session.completed", "invoice.payment_failed", "customer.subscription.updated"}
	for _, event := range types {
		sub := s.subscribe(t, token, receiver.URL, event)
		require.Equal(t, http.StatusCreated, sub.status, sub.body)
	}
	current := func(id, typ string, object map[string]any) map[string]any {
		e := stripeEvent(id, typ, object)
		e["api_version"] = stripe.APIVersion
		return e
	}
	for _, e := range []map[string]any{
		current("evt_cur_checkout", "checkout.session.completed", map[string]any{
			"id": "cs_9", "object": "checkout.session", "customer": "cus_9", "client_reference_id": "acc_current",
			"customer_details": map[string]any{"email": "billing@company.example"}, "subscription": "sub_9", "status": "complete",
		}),
		current("evt_cur_invoice", "invoice.payment_failed", map[string]any{
			"id": "in_9", "object": "invoice", "customer": "cus_9", "customer_email": "billing@company.example",
			"amount_due": 4900, "status": "open",
			"parent": map[string]any{"type": "subscription_details", "subscription_details": map[string]any{"subscription": "sub_9", "metadata": map[string]any{}}},
		}),
		current("evt_cur_sub", "customer.subscription.updated", map[string]any{
			"id": "sub_9", "object": "subscription", "customer": "cus_9", "status": "past_due",
		}),
	} {
		r := s.postStripe(t, e, stripeSecret, time.Now())
		require.Equal(t, http.StatusOK, r.status, r.body)
		require.Equal(t, true, r.body["matched"], e["type"])
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == len(types) }, 30*time.Second, 20*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, typ := range types {
		require.Equal(t, "owner@example.com", got[typ]["customer_email"], "%s names the account's email", typ)
	}
	require.Equal(t, "sub_9", got["invoice.payment_failed"]["subscription_id"], "the current invoice's subscription")
	require.Equal(t, "sub_9", got["checkout.session.completed"]["subscription_id"])
}
