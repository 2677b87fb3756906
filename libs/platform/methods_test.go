package platform_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/platform"
)

// The routes' shapes are the services': plain routes, a subrouter under a prefix (identity's
// /api/auth) and one path with two methods.
func methodsServer(t *testing.T) *httptest.Server {
	t.Helper()
	r := (&platform.Runtime{}).Router()
	ok := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		httpx.Respond(w, http.StatusOK, map[string]string{"method": req.Method})
	})
	auth := r.PathPrefix("/api/auth").Subrouter()
	auth.Handle("", ok).Methods(http.MethodPost)
	auth.Handle("/jwks.json", ok).Methods(http.MethodGet)
	r.Handle("/api/pql-check", ok).Methods(http.MethodGet)
	r.Handle("/api/keys", ok).Methods(http.MethodGet)
	r.Handle("/api/keys", ok).Methods(http.MethodPost)
	r.Handle("/api/keys/{id}", ok).Methods(http.MethodDelete)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

func TestAKnownPathWithAnotherMethodIs405WithAllow(t *testing.T) {
	t.Parallel()
	srv := methodsServer(t)
	cases := []struct{ method, path, allow string }{
		{http.MethodGet, "/api/auth", "POST, OPTIONS"},
		{http.MethodPost, "/api/pql-check", "GET, HEAD, OPTIONS"},
		{http.MethodDelete, "/api/keys", "GET, HEAD, POST, OPTIONS"},
		{http.MethodPut, "/api/auth/jwks.json", "GET, HEAD, OPTIONS"},
		{http.MethodGet, "/api/keys/k1", "DELETE, OPTIONS"},
	}
	for _, tc := range cases {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var body map[string]any
		require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
		res.Body.Close()
		require.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, tc.method+" "+tc.path)
		require.Equal(t, tc.allow, res.Header.Get("Allow"), tc.method+" "+tc.path)
		require.Equal(t, "method_not_allowed", body["code"])
		require.Equal(t, false, body["ok"])
		require.NotEmpty(t, res.Header.Get("API-Version"))
	}
}

func TestHeadIsServedOnEveryGetRoute(t *testing.T) {
	t.Parallel()
	srv := methodsServer(t)
	for _, path := range []string{"/api/pql-check", "/api/keys", "/api/auth/jwks.json"} {
		get, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		getBody, _ := io.ReadAll(get.Body)
		get.Body.Close()

		res, err := http.Head(srv.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, path)
		require.Empty(t, body, path)
		require.Equal(t, get.Header.Get("Content-Type"), res.Header.Get("Content-Type"), path)
		require.Equal(t, `{"ok":true,"method":"GET"}`, strings.TrimSpace(string(getBody)))
	}
	res, err := http.Head(srv.URL + "/api/auth")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	require.Equal(t, "POST, OPTIONS", res.Header.Get("Allow"))
}

// OPTIONS says what a path allows; it opens nothing to other origins (no CORS headers).
func TestOptionsOnAKnownPathIs204WithAllow(t *testing.T) {
	t.Parallel()
	srv := methodsServer(t)
	req, err := http.NewRequest(http.MethodOptions, srv.URL+"/api/keys", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "https://elsewhere.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusNoContent, res.StatusCode)
	require.Equal(t, "GET, HEAD, POST, OPTIONS", res.Header.Get("Allow"))
	require.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
}

func TestAnUnknownPathStays404(t *testing.T) {
	t.Parallel()
	srv := methodsServer(t)
	res, err := http.Post(srv.URL+"/api/nope", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	require.Empty(t, res.Header.Get("Allow"))
}
