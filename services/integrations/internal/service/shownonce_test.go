package service_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 37: a retry with the same Idempotency-Key answered a subscription's whsec_ signing
// secret, or a rotated inbound secret, again for the key's 7 days.
func TestAReplayNeverShowsASecretAgain(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.owner(t, "acc_owner_once", "once@example.com")
	for _, tc := range []struct {
		path string
		body any
	}{
		{"/api/ext-webhook/subscribe", map[string]string{"hookUrl": "https://hooks.example.com/in", "event": "new_lead"}},
		{"/api/ext-webhook/secret/rotate", nil},
	} {
		headers := bearer(token)
		headers["Idempotency-Key"] = "k-once" + tc.path
		first := s.do(t, http.MethodPost, tc.path, headers, tc.body)
		require.Less(t, first.status, 300, first.body)
		shown := first.body["secret"].(string)

		again := s.do(t, http.MethodPost, tc.path, headers, tc.body)
		raw, err := json.Marshal(again.body)
		require.NoError(t, err)
		require.NotContains(t, string(raw), shown, tc.path)
		require.Equal(t, http.StatusConflict, again.status, again.body)
		require.Equal(t, "idempotency_secret_withheld", again.body["code"])
		require.Equal(t, []any{"secret"}, again.body["withheld"])
		answer := again.body["answer"].(map[string]any)
		require.NotContains(t, answer, "secret")
		require.Equal(t, first.body["id"], answer["id"], "the rest of the first answer")
	}
	// An answer without a secret (subscribing again: the existing subscription) replays as ever.
	headers := bearer(token)
	headers["Idempotency-Key"] = "k-again"
	body := map[string]string{"hookUrl": "https://hooks.example.com/in", "event": "new_lead"}
	existing := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", headers, body)
	require.Equal(t, http.StatusOK, existing.status, existing.body)
	replayed := s.do(t, http.MethodPost, "/api/ext-webhook/subscribe", headers, body)
	require.Equal(t, http.StatusOK, replayed.status, replayed.body)
	require.Equal(t, "true", replayed.header.Get("Idempotent-Replayed"))
	require.Equal(t, existing.body, replayed.body)

	require.Zero(t, s.count(t, `SELECT count(*) FROM idempotent_requests WHERE position('whsec_' in convert_from(body, 'UTF8')) > 0
		OR position('bzext_' in convert_from(body, 'UTF8')) > 0`), "no stored answer holds a secret")
}
