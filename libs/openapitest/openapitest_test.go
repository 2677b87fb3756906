package openapitest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/openapitest"
)

const spec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /api/thing:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                additionalProperties: false
                required: [ok, count]
                properties:
                  ok: {type: boolean}
                  count: {type: integer}
`

// recorder captures the errors Check reports instead of failing the real test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) { r.errors = append(r.errors, format) }
func (r *recorder) Helper()                           {}

func exchange(t *testing.T, body string) (*http.Request, *http.Response, []byte) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/thing", nil)
	require.NoError(t, err)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return req, resp, b
}

func TestCheckAcceptsAMatchingResponse(t *testing.T) {
	c := openapitest.Load(t, []byte(spec))
	rec := &recorder{TB: t}
	req, resp, body := exchange(t, `{"ok":true,"count":3}`)
	c.Check(rec, req, resp, body)
	require.Empty(t, rec.errors)
}

func TestCheckRejectsADriftedResponse(t *testing.T) {
	c := openapitest.Load(t, []byte(spec))
	for _, body := range []string{`{"ok":true,"count":"3"}`, `{"ok":true}`, `{"ok":true,"count":3,"extra":1}`} {
		rec := &recorder{TB: t}
		req, resp, b := exchange(t, body)
		c.Check(rec, req, resp, b)
		require.NotEmpty(t, rec.errors, body)
		require.True(t, strings.Contains(rec.errors[0], "does not match"), body)
	}
}

func TestDoChecksAndDecodes(t *testing.T) {
	c := openapitest.Load(t, []byte(spec))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true,"count":2}`)
	}))
	t.Cleanup(srv.Close)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/thing", nil)
	require.NoError(t, err)
	x := c.Do(t, req)
	require.Equal(t, http.StatusOK, x.Status)
	require.Equal(t, 2.0, x.JSON["count"])
}

func TestJSONRequestSendsAStringAsWrittenNilAsNothingAndElseJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body any
		want string
	}{
		{`{"a":`, `{"a":`},
		{nil, ""},
		{map[string]int{"a": 1}, `{"a":1}`},
	} {
		req := openapitest.JSONRequest(t, http.MethodPost, "http://example.test/api/thing", tc.body)
		require.Equal(t, "application/json", req.Header.Get("Content-Type"))
		got, err := io.ReadAll(req.Body)
		require.NoError(t, err)
		require.Equal(t, tc.want, string(got))
	}
}
