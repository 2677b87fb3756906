package service_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// issue 37, items 1 and 7, through analytics' real server: %00 in ?clientId= of health history was
// a 500 (SQLSTATE 22021); null for a string member was read as absent.
func TestQueryAndBodyTextPostgreSQLCannotStoreIs400NamingIt(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.token(t, "acc_textowner", "growth")
	cases := []struct {
		method, path, body, field string
	}{
		{http.MethodGet, "/api/health-score/history?clientId=%00", "", "clientId"},
		{http.MethodGet, "/api/health-score/history?clientId=acc_%FF%FE", "", "clientId"},
		{http.MethodGet, "/api/pql-check?feature=chat%00", "", "feature"},
		{http.MethodPost, "/api/log-usage", `{"feature":"chat","meta":{"page":"x\u0000"}}`, "meta.page"},
		{http.MethodPost, "/api/log-usage", `{"feature":"chat","action":null}`, "action"},
	}
	for _, tc := range cases {
		r := s.do(t, tc.method, tc.path, bulkIP, tok, tc.body)
		require.Equal(t, http.StatusBadRequest, r.status, "%s %s %s: %v", tc.method, tc.path, tc.body, r.body)
		require.Equal(t, tc.field, r.body["field"], tc.path+" "+tc.body)
	}
	r := s.do(t, http.MethodPost, "/api/log-usage", bulkIP, tok, `{"feature":"chat","meta":null}`)
	require.Equal(t, http.StatusOK, r.status, "meta is documented nullable: %v", r.body)
}
