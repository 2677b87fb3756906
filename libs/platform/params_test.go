package platform_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// issue 37, items 1 and 7, through the Router every service builds its routes on: a path id or a
// query value PostgreSQL cannot store and an empty Idempotency-Key are 400s naming the parameter,
// before any handler runs.
func TestTheRouterRefusesParametersPostgreSQLCannotStore(t *testing.T) {
	t.Parallel()
	srv := methodsServer(t)
	cases := []struct {
		method, path string
		emptyKey     bool
		field        string
	}{
		{http.MethodDelete, "/api/keys/%FF%FE", false, "id"},
		{http.MethodDelete, "/api/keys/k%00", false, "id"},
		{http.MethodGet, "/api/pql-check?feature=%00", false, "feature"},
		{http.MethodHead, "/api/pql-check?feature=%FF", false, ""},
		{http.MethodPost, "/api/keys", true, "Idempotency-Key"},
	}
	for _, tc := range cases {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		require.NoError(t, err)
		if tc.emptyKey {
			req.Header["Idempotency-Key"] = []string{""}
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var body map[string]any
		if tc.method != http.MethodHead {
			require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
		}
		res.Body.Close()
		require.Equal(t, http.StatusBadRequest, res.StatusCode, tc.method+" "+tc.path)
		if tc.field != "" {
			require.Equal(t, tc.field, body["field"], tc.method+" "+tc.path)
		}
	}
}
