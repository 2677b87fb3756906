package platform_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/platform"
)

func paramsServer(t *testing.T, r *mux.Router) *httptest.Server {
	t.Helper()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { httpx.Respond(w, http.StatusOK, struct{}{}) })
	r.Handle("/api/keys", ok).Methods(http.MethodPost)
	r.Handle("/api/keys/{id}", ok).Methods(http.MethodDelete)
	r.Handle("/api/pql-check", ok).Methods(http.MethodGet)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

var paramCases = []struct {
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

func send(t *testing.T, srv *httptest.Server, method, path string, emptyKey bool) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	require.NoError(t, err)
	if emptyKey {
		req.Header["Idempotency-Key"] = []string{""}
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var body map[string]any
	if method != http.MethodHead {
		require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	}
	return res.StatusCode, body
}

// issue 37, items 1 and 7, through the router every API service builds its routes on: a path id or
// a query value PostgreSQL cannot store and an empty Idempotency-Key are 400s naming the
// parameter, before any handler runs.
func TestTheAPIRouterRefusesParametersPostgreSQLCannotStore(t *testing.T) {
	t.Parallel()
	srv := paramsServer(t, (&platform.Runtime{}).APIRouter())
	for _, tc := range paramCases {
		status, body := send(t, srv, tc.method, tc.path, tc.emptyKey)
		require.Equal(t, http.StatusBadRequest, status, tc.method+" "+tc.path)
		if tc.field != "" {
			require.Equal(t, tc.field, body["field"], tc.method+" "+tc.path)
		}
	}
}

// The console's router leaves its parameters to its pages, which answer in HTML (a sign-in page
// drops an unsafe next= and shows the form).
func TestTheConsolesRouterLeavesParametersToItsPages(t *testing.T) {
	t.Parallel()
	srv := paramsServer(t, (&platform.Runtime{}).Router())
	for _, tc := range paramCases {
		status, _ := send(t, srv, tc.method, tc.path, tc.emptyKey)
		require.Equal(t, http.StatusOK, status, tc.method+" "+tc.path)
	}
}
