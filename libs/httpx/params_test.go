package httpx_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
)

// serveParams runs a request through TextParams with the path parameters the router would give.
func serveParams(t *testing.T, target string, vars map[string]string) (int, map[string]any) {
	t.Helper()
	h := httpx.TextParams(func(*http.Request) map[string]string { return vars })(
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { httpx.Respond(w, http.StatusOK, struct{}{}) }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	return rec.Code, body
}

// issue 37, item 1: "%FF%FE" in a path id or "%00" in ?clientId= reached PostgreSQL and came back
// as 500 (SQLSTATE 22021); they are 400s naming the parameter.
func TestTextParamsRefusesBytesPostgreSQLCannotStore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		target string
		vars   map[string]string
		field  string
	}{
		{"/api/keys/x", map[string]string{"id": "\xff\xfe"}, "id"},
		{"/api/keys/x", map[string]string{"id": "key\x00"}, "id"},
		{"/api/health-score/history?clientId=%00", nil, "clientId"},
		{"/api/lead-qualify?email=a%40b.co&businessName=%FF%FE", nil, "businessName"},
		{"/api/x?a=1&a=%00", nil, "a"},
		{"/api/x?%FF=1", nil, "query parameter name"},
	}
	for _, tc := range cases {
		status, body := serveParams(t, tc.target, tc.vars)
		require.Equal(t, http.StatusBadRequest, status, tc.target)
		require.Equal(t, "invalid_field", body["code"], tc.target)
		require.Equal(t, tc.field, body["field"], tc.target)
	}
	status, _ := serveParams(t, "/api/x?q=caf%C3%A9&empty=", map[string]string{"id": "key_01"})
	require.Equal(t, http.StatusOK, status)
}

// issue 37, item 7: an empty Idempotency-Key was read as none; the documents say minLength 1.
func TestNonEmptyHeadersRefusesAnEmptyValue(t *testing.T) {
	t.Parallel()
	h := httpx.NonEmptyHeaders("Idempotency-Key")(
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { httpx.Respond(w, http.StatusOK, struct{}{}) }))
	for _, values := range [][]string{{""}, {"  "}} {
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		req.Header["Idempotency-Key"] = values
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusBadRequest, rec.Code, values)
		require.JSONEq(t, `{"ok":false,"code":"invalid_field","field":"Idempotency-Key",
			"error":"Idempotency-Key: must not be empty; leave the header out to send none"}`, rec.Body.String())
	}
	for _, values := range [][]string{nil, {"k-1"}} {
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		if values != nil {
			req.Header["Idempotency-Key"] = values
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, values)
	}
}
