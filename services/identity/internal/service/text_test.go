package service_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// issue 37, items 1 and 7: bytes PostgreSQL's text cannot hold (SQLSTATE 22021) and an empty
// Idempotency-Key, through identity's real server, are 400s naming the field and write nothing.
func TestTextPostgreSQLCannotStoreIs400NamingTheField(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.signedInOwner(t, "10.1.9.1", "ann@example.com", "growth")

	cases := []struct {
		name, method, path string
		body               any
		hdr                http.Header
		code, field        string
	}{
		{"NUL in a body string", http.MethodPost, "/api/keys", map[string]string{"name": "nul\u0000byte"}, nil, "invalid_field", "name"},
		{"invalid UTF-8 in a path id", http.MethodDelete, "/api/keys/%FF%FE", nil, nil, "invalid_field", "id"},
		{"NUL in a path id", http.MethodDelete, "/api/keys/key%00", nil, nil, "invalid_field", "id"},
		{"an empty Idempotency-Key", http.MethodPost, "/api/keys", map[string]string{"name": "ci"},
			http.Header{"Idempotency-Key": {""}}, "invalid_field", "Idempotency-Key"},
	}
	for _, tc := range cases {
		r := s.call(t, tc.method, tc.path, "10.1.9.1", token, tc.body, tc.hdr)
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %v", tc.name, r.body)
		require.Equal(t, tc.code, r.body["code"], tc.name)
		require.Equal(t, tc.field, r.body["field"], tc.name)
	}
	var n int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(), `SELECT count(*) FROM api_keys`).Scan(&n))
	require.Zero(t, n, "nothing written")
}
