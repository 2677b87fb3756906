package ports

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v85"
)

func event(t *testing.T, typ string, object string) stripe.Event {
	t.Helper()
	return stripe.Event{ID: "evt_1", Type: stripe.EventType(typ), Data: &stripe.EventData{Raw: json.RawMessage(object)}}
}

func TestSubscriptionEventsCarryPlanStatusAndEnd(t *testing.T) {
	t.Parallel()
	p, err := paymentOf(event(t, "customer.subscription.updated", `{"id":"sub_1","object":"subscription","customer":"cus_1",
		"status":"past_due","cancel_at_period_end":true,
		"items":{"object":"list","data":[{"id":"si_1","price":{"id":"price_1","lookup_key":"full_stack"}}]}}`))
	require.NoError(t, err)
	require.Equal(t, "sub_1", p.SubscriptionID)
	require.Equal(t, "cus_1", p.CustomerID)
	require.Equal(t, "past_due", p.Status)
	require.Equal(t, "full_stack", p.Plan)
	require.True(t, *p.CancelAtPeriodEnd)
	require.Nil(t, p.EndedAt)

	p, err = paymentOf(event(t, "customer.subscription.deleted", `{"id":"sub_1","object":"subscription",
		"customer":{"id":"cus_1","object":"customer","email":"ann@example.com"},"status":"canceled","ended_at":1767322800,
		"metadata":{"plan":"growth"}}`))
	require.NoError(t, err)
	require.Equal(t, "ann@example.com", p.CustomerEmail, "an expanded customer gives its email")
	require.Equal(t, "growth", p.Plan)
	require.Equal(t, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), *p.EndedAt)

	p.Raw = json.RawMessage(`{"id":"evt_1","object":"event","data":{"object":{"ended_at":1767322800}}}`)
	msg, err := p.Message()
	require.NoError(t, err)
	require.JSONEq(t, `{"event":"customer.subscription.deleted","id":"evt_1","customer_email":"ann@example.com","plan":"growth",
		"status":"canceled","amount":null,"amount_due":null,"subscription_id":"sub_1","invoice_id":null,
		"cancel_at_period_end":false,"ended_at":1767322800,"next_attempt":null,
		"processor_event":{"id":"evt_1","object":"event","data":{"object":{"ended_at":1767322800}}}}`, string(msg.Body),
		"key fields at the top level in the processor's types, nothing dropped, the original object kept")
}

func TestCheckoutTakesTheEmailFromCustomerDetails(t *testing.T) {
	t.Parallel()
	p, err := paymentOf(event(t, "checkout.session.completed", `{"id":"cs_1","object":"checkout.session",
		"customer_details":{"email":"bob@example.com"},"amount_total":9900,"status":"complete","client_reference_id":"acc_1"}`))
	require.NoError(t, err)
	require.Equal(t, "bob@example.com", p.CustomerEmail)
	require.Equal(t, "acc_1", p.ClientReferenceID)
	require.EqualValues(t, 9900, *p.Amount)
}

func TestEventsWithoutDataAreRefused(t *testing.T) {
	t.Parallel()
	_, err := paymentOf(stripe.Event{ID: "evt_1", Type: "invoice.paid"})
	require.Error(t, err)
	_, err = paymentOf(event(t, "invoice.paid", `{"id": 5}`))
	require.Error(t, err, "an object of the wrong shape")
}
