package service_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 37: a retry of POST /api/keys with the same Idempotency-Key answered the same bza_ key
// again, for the key's 7 days and after the key was deleted; the same for an invitation token.
func TestAReplayNeverShowsASecretAgain(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.signedInOwner(t, "10.1.9.1", "ann@example.com", "growth")

	for _, tc := range []struct {
		path, secret string
		body         map[string]string
	}{
		{"/api/keys", "key", map[string]string{"name": "zapier"}},
		{"/api/clients", "inviteToken", map[string]string{"email": "c@shop.com", "businessName": "Shop"}},
	} {
		retry := http.Header{"Idempotency-Key": {"k-" + tc.secret}}
		first := s.call(t, http.MethodPost, tc.path, "10.1.9.1", token, tc.body, retry)
		require.Equal(t, http.StatusCreated, first.status, first.body)
		shown := first.body[tc.secret].(string)

		again := s.call(t, http.MethodPost, tc.path, "10.1.9.1", token, tc.body, retry)
		require.NotContains(t, string(mustJSON(t, again.body)), shown, tc.path)
		require.Equal(t, http.StatusConflict, again.status, again.body)
		require.Equal(t, "idempotency_secret_withheld", again.body["code"])
		require.Equal(t, "Idempotency-Key", again.body["field"])
		require.Equal(t, []any{tc.secret}, again.body["withheld"])
		answer := again.body["answer"].(map[string]any)
		require.Equal(t, first.body["id"], answer["id"], "the rest of the first answer says what was made")
		require.NotContains(t, answer, tc.secret)
		require.Equal(t, "no-store", again.header.Get("Cache-Control"))
	}
	var stored int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(t.Context(), `SELECT count(*) FROM idempotent_requests
		WHERE position('bza_' in convert_from(body, 'UTF8')) > 0 OR position('bzi_' in convert_from(body, 'UTF8')) > 0`).Scan(&stored))
	require.Zero(t, stored, "no stored answer holds a secret")
}
