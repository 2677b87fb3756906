package service_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// issue 37, items 1 and 7, through the assistant's real server: a NUL in the message was a 500
// (SQLSTATE 22021), and an empty or null sessionId was read as none and started a new session.
func TestChatRefusesTextPostgreSQLCannotStoreAndEmptyOrNullMembers(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	token := s.token("acc_alice", "growth")
	cases := []struct {
		body        string
		code, field string
	}{
		{`{"message":"nul\u0000byte"}`, "invalid_field", "message"},
		{`{"message":"hello","sessionId":""}`, "invalid_field", "sessionId"},
		{`{"message":"hello","sessionId":null}`, "invalid_type", "sessionId"},
		{`{"message":null}`, "invalid_type", "message"},
		{`{"message":"hello","context":{"page":"lead\u0000s"}}`, "invalid_field", "context.page"},
	}
	for _, tc := range cases {
		r := s.chat(t, token, tc.body)
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %s", tc.body, r.raw)
		require.Equal(t, tc.code, r.body["code"], tc.body)
		require.Equal(t, tc.field, r.body["field"], tc.body)
	}
	// context takes any object and is documented nullable: null is the same as leaving it out.
	r := s.chat(t, token, `{"message":"hello","context":null}`)
	require.Equal(t, http.StatusOK, r.status, r.raw)
}
