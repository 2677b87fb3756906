package httpx_test

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
)

func TestVersionedNamesTheVersionAndRefusesAnUnknownPin(t *testing.T) {
	t.Parallel()
	h := httpx.Versioned(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { httpx.Respond(w, http.StatusOK, map[string]any{}) }))
	for _, pinned := range []string{"", httpx.APIVersion, httpx.LenientJSONVersion} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/api/x", nil)
		if pinned != "" {
			r.Header.Set("API-Version", pinned)
		}
		h.ServeHTTP(w, r)
		require.Equal(t, http.StatusOK, w.Code, pinned)
		require.Equal(t, cmp.Or(pinned, httpx.APIVersion), w.Header().Get("API-Version"), "the answer names the version it speaks")
	}

	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/api/x", nil)
	r.Header.Set("API-Version", "2030-01-01")
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Equal(t, httpx.APIVersion, w.Header().Get("API-Version"), "the refusal says what is served")
	var body map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
	require.Equal(t, "unsupported_api_version", body["code"])
	require.Equal(t, "API-Version", body["field"])
}
