package apidocs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apidocs"
)

func TestDocumentIsValidOpenAPI(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(apidocs.Document())
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
	require.NotNil(t, doc.Paths.Find("/api/auth"), "identity's routes are in the merged document")
	require.NotNil(t, doc.Paths.Find("/api/lead-finder"), "leads' routes are in the merged document")
}

func TestJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	apidocs.JSON().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	require.Equal(t, "3.1.0", doc.OpenAPI)
	require.Contains(t, doc.Paths, "/api/chat")
}

func TestPage(t *testing.T) {
	rec := httptest.NewRecorder()
	apidocs.Page().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/openapi", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
	require.Contains(t, rec.Header().Get("Content-Security-Policy"), "default-src 'none'")
	body := rec.Body.String()
	require.Contains(t, body, `<span class="path">/api/auth</span>`)
	require.NotContains(t, body, "<script", "the page is static HTML")

	head := httptest.NewRecorder()
	apidocs.Page().ServeHTTP(head, httptest.NewRequest(http.MethodHead, "/api/openapi", nil))
	require.Equal(t, http.StatusOK, head.Code)
	require.Zero(t, head.Body.Len())
}
