package openapitest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/openapitest"
)

const probeSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
  responses:
    Error:
      description: the error envelope
      content: {application/json: {schema: {type: object, required: [ok, error], properties: {ok: {type: boolean}, error: {type: string}}}}}
security: [{bearer: []}]
paths:
  /api/things:
    post:
      operationId: createThing
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              additionalProperties: false
              required: [name]
              properties:
                name: {type: string, minLength: 1, maxLength: 10}
                count: {type: integer, minimum: 1, maximum: 5}
                tags: {type: array, maxItems: 2, items: {type: string}}
      responses:
        "201": {description: created, content: {application/json: {schema: {type: object, required: [ok], properties: {ok: {type: boolean}}}}}}
        "400": {$ref: "#/components/responses/Error"}
        "401": {$ref: "#/components/responses/Error"}
        "413": {$ref: "#/components/responses/Error"}
        "415": {$ref: "#/components/responses/Error"}
  /api/things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 50}}
      responses:
        "200": {description: found, content: {application/json: {schema: {type: object, required: [ok], properties: {ok: {type: boolean}}}}}}
        "400": {$ref: "#/components/responses/Error"}
        "401": {$ref: "#/components/responses/Error"}
        "404": {$ref: "#/components/responses/Error"}
`

// faithful is a service that keeps the document: it refuses what the document refuses (it asks
// kin-openapi), bodies over 1 MiB, an unknown API-Version, and answers 404 for every id. bug,
// when set, may answer first.
func faithful(t *testing.T, bug func(w http.ResponseWriter, r *http.Request, body []byte) bool) http.Handler {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(probeSpec))
	require.NoError(t, err)
	router, err := gorillamux.NewRouter(doc)
	require.NoError(t, err)
	answer := func(w http.ResponseWriter, status int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status < 300 {
			_, _ = io.WriteString(w, `{"ok":true}`)
			return
		}
		_, _ = fmt.Fprintf(w, `{"ok":false,"error":"%d"}`, status)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			answer(w, http.StatusRequestEntityTooLarge)
			return
		}
		if bug != nil && bug(w, r, body) {
			return
		}
		switch {
		case r.Header.Get("Authorization") != "Bearer good":
			answer(w, http.StatusUnauthorized)
			return
		case r.Header.Get("API-Version") != "":
			answer(w, http.StatusBadRequest)
			return
		case r.Method == http.MethodPost && r.Header.Get("Content-Type") != "application/json":
			answer(w, http.StatusUnsupportedMediaType)
			return
		case r.Method == http.MethodPost && jsonv2.Unmarshal(body, new(any)) != nil:
			answer(w, http.StatusBadRequest) // duplicate names are invisible to the validator
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		route, params, err := router.FindRoute(r)
		if err != nil {
			answer(w, http.StatusNotFound)
			return
		}
		if err := openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
			Request: r, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		}); err != nil {
			answer(w, http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodGet {
			answer(w, http.StatusNotFound)
			return
		}
		answer(w, http.StatusCreated)
	})
}

// findings collects what Probe reports instead of failing the real test.
type findings struct {
	testing.TB
	errors []string
}

func (f *findings) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *findings) Helper()             {}
func (f *findings) Logf(string, ...any) {}
func (f *findings) Log(...any)          {}

func probe(t *testing.T, spec string, h http.Handler) (openapitest.Report, []string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	rec := &findings{TB: t}
	report := openapitest.Load(t, []byte(spec)).Probe(rec, openapitest.Probe{
		Base:        srv.URL,
		Credentials: map[string]func(*http.Request){"bearer": func(r *http.Request) { r.Header.Set("Authorization", "Bearer good") }},
	})
	return report, rec.errors
}

func TestProbeFindsNothingInAServiceThatKeepsItsDocument(t *testing.T) {
	report, errs := probe(t, probeSpec, faithful(t, nil))
	require.Empty(t, errs)
	require.Greater(t, report.Requests, 60)
}

func TestProbeFindsEachKindOfDrift(t *testing.T) {
	cases := []struct {
		name string
		spec string
		bug  func(w http.ResponseWriter, r *http.Request, body []byte) bool
		want []string // all in one finding
	}{
		{name: "a NUL reaches the database", spec: probeSpec,
			bug: func(w http.ResponseWriter, _ *http.Request, body []byte) bool {
				if !bytes.Contains(body, []byte(`\u0000`)) {
					return false
				}
				w.WriteHeader(http.StatusInternalServerError)
				return true
			},
			want: []string{"createThing [nul] body name: a NUL character: server error (500)"}},
		{name: "null read as absent", spec: probeSpec,
			bug: func(w http.ResponseWriter, _ *http.Request, body []byte) bool {
				if !bytes.Contains(body, []byte(`"count":null`)) {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				_, _ = io.WriteString(w, `{"ok":true}`)
				return true
			},
			want: []string{"createThing [null] body count: null: accepted (201)"}},
		{name: "an undeclared status", spec: strings.Replace(probeSpec, `        "413": {$ref: "#/components/responses/Error"}`+"\n", "", 1),
			want: []string{"createThing [too-large]", "not in the contract (413) status is not supported"}},
		{name: "an odd path id answers 500", spec: probeSpec,
			bug: func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
				if !strings.Contains(r.URL.EscapedPath(), "%FF") {
					return false
				}
				w.WriteHeader(http.StatusInternalServerError)
				return true
			},
			want: []string{"getThing [path-id] path id: bytes that are not UTF-8: server error (500)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := probe(t, tc.spec, faithful(t, tc.bug))
			require.True(t, slices.ContainsFunc(errs, func(e string) bool {
				return !slices.ContainsFunc(tc.want, func(w string) bool { return !strings.Contains(e, w) })
			}), "want %q in\n%s", tc.want, strings.Join(errs, "\n"))
		})
	}
}
