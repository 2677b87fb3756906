package service_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// issue 37, item 1, through integrations' real server: a NUL in any string of the inbound webhook,
// an inbound key that is not UTF-8 and %FF%FE in a path id were 500s (SQLSTATE 22021); each is a
// 400 naming the field, and nothing is stored.
func TestIntegrationsRefusesTextPostgreSQLCannotStore(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_owner_text", "text@example.com")
	secret := s.rotate(t, token)
	inbound := func(key string) map[string]string {
		h := map[string]string{"X-Ext-Secret": secret}
		if key != "" {
			h["webhook-id"] = key
		}
		return h
	}
	cases := []struct {
		name, method, path string
		headers            map[string]string
		body               string
		field              string
	}{
		{"NUL in a spec'd field", http.MethodPost, "/api/ext-webhook", inbound(""),
			`{"event":"new_lead","name":"nul\u0000byte","email":"a@b.co"}`, "name"},
		{"NUL in an extra", http.MethodPost, "/api/ext-webhook", inbound(""),
			`{"event":"new_lead","name":"Jane","email":"a@b.co","note":"\u0000"}`, "note"},
		{"a webhook-id that is not UTF-8", http.MethodPost, "/api/ext-webhook", inbound("msg_\xff\xfe"),
			`{"event":"new_lead","name":"Jane","email":"a@b.co"}`, "webhook-id"},
		{"%FF%FE in a subscription id", http.MethodDelete, "/api/ext-webhook/subscriptions/%FF%FE", bearer(token), "", "id"},
		{"%00 in a subscription id", http.MethodGet, "/api/ext-webhook/subscriptions/hook%00/deliveries", bearer(token), "", "id"},
		{"%FF%FE in a delivery id", http.MethodPost, "/api/ext-webhook/deliveries/%FF%FE/replay", bearer(token), "", "id"},
	}
	for _, tc := range cases {
		var body any
		if tc.body != "" {
			body = tc.body
		}
		r := s.do(t, tc.method, tc.path, tc.headers, body)
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %v", tc.name, r.body)
		require.Equal(t, tc.field, r.body["field"], tc.name)
	}
	require.Zero(t, s.count(t, `SELECT count(*) FROM inbox`), "nothing stored")
}

// issue 37, item 10: full-width digits passed the subscribe-time check of a literal address
// (the delivery-time check refused them); they are read as the address they spell.
func TestSubscribeRefusesAPrivateAddressWrittenInFullWidthDigits(t *testing.T) {
	t.Parallel()
	// Only 127.0.0.2 is open here (the component stack opens all of loopback for its receivers).
	s := newStackWith(t, map[string]string{"INTEGRATIONS_TARGET_ALLOW_CIDRS": "127.0.0.2/32"})
	token := s.owner(t, "acc_owner_fullwidth", "fullwidth@example.com")
	for _, hookURL := range []string{
		"https://１２７.０.０.１/hook",
		"https://１６９.２５４.１６９.２５４/latest/meta-data",
		"https://１０.０.０.１:8443/hook",
		"https://ｌｏｃａｌｈｏｓｔ/hook",
	} {
		r := s.subscribe(t, token, hookURL, "new_lead")
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %v", hookURL, r.body)
		require.Equal(t, "hookUrl", r.body["field"], hookURL)
	}
	require.Zero(t, s.count(t, `SELECT count(*) FROM subscriptions WHERE account_id = 'acc_owner_fullwidth'`))
}
