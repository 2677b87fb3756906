package openapitest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/openapitest"
)

const routesSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    key: {type: apiKey, in: header, name: X-Key}
paths:
  /api/things/{id}:
    get:
      operationId: getThing
      security: [{bearer: []}]
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /api/feed:
    get:
      operationId: feed
      security: []
      responses: {"200": {description: ok}}
  /api/seed:
    post:
      operationId: seed
      security: [{key: []}]
      responses: {"200": {description: ok}}
  /internal/things:
    get:
      operationId: internalThings
      x-internal: true
      responses: {"200": {description: ok}}
`

// messages captures the errors CheckRoutes reports instead of failing the real test.
type messages struct {
	testing.TB
	errors []string
}

func (m *messages) Errorf(format string, args ...any) {
	m.errors = append(m.errors, fmt.Sprintf(format, args...))
}
func (m *messages) Helper() {}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

// router is a service that keeps its contract; change edits it before the check.
func router(change func(r *mux.Router, routes map[string]*mux.Route)) *mux.Router {
	r := mux.NewRouter()
	api := r.PathPrefix("/api").Subrouter()
	routes := map[string]*mux.Route{
		"thing": api.Handle("/things/{id:[0-9a-f-]+}", status(http.StatusUnauthorized)).Methods(http.MethodGet),
		"feed":  api.Handle("/feed", status(http.StatusOK)).Methods(http.MethodGet, http.MethodHead),
		"seed":  api.Handle("/seed", status(http.StatusForbidden)).Methods(http.MethodPost),
	}
	r.Handle("/internal/things", status(http.StatusOK)).Methods(http.MethodGet)
	r.Handle("/internal/undocumented", status(http.StatusOK)).Methods(http.MethodGet)
	if change != nil {
		change(r, routes)
	}
	return r
}

func check(t *testing.T, spec string, r *mux.Router) []string {
	t.Helper()
	m := &messages{TB: t}
	openapitest.Load(t, []byte(spec)).CheckRoutes(m, r)
	return m.errors
}

func TestCheckRoutesAcceptsAServiceThatKeepsItsContract(t *testing.T) {
	require.Empty(t, check(t, routesSpec, router(nil)))
}

func TestCheckRoutesFindsDrift(t *testing.T) {
	cases := []struct {
		name   string
		spec   string
		change func(r *mux.Router, routes map[string]*mux.Route)
		want   []string
	}{
		{name: "a route missing from the contract", spec: routesSpec,
			change: func(r *mux.Router, _ map[string]*mux.Route) {
				r.Handle("/api/extra", status(http.StatusOK)).Methods(http.MethodDelete)
			},
			want: []string{"DELETE /api/extra is registered but not in the contract"}},
		{name: "a documented operation nobody registers", spec: routesSpec,
			change: func(_ *mux.Router, routes map[string]*mux.Route) { routes["seed"].Path("/api/seeds") },
			want: []string{"POST /api/seed is documented but the router does not register it",
				"POST /api/seed/api/seeds is registered but not in the contract"}},
		{name: "an operation without operationId", spec: strings.Replace(routesSpec, "      operationId: feed\n", "", 1),
			want: []string{"GET /api/feed has no operationId"}},
		{name: "a bearer operation that answers without a token", spec: routesSpec,
			change: func(_ *mux.Router, routes map[string]*mux.Route) { routes["thing"].Handler(status(http.StatusOK)) },
			want:   []string{"GET /api/things/{id} is documented as bearer-protected but answers 200"}},
		{name: "a public operation that wants credentials", spec: routesSpec,
			change: func(_ *mux.Router, routes map[string]*mux.Route) {
				routes["feed"].Handler(status(http.StatusUnauthorized))
			},
			want: []string{"GET /api/feed is documented as public but answers 401"}},
		{name: "an API-key operation that answers without its key", spec: routesSpec,
			change: func(_ *mux.Router, routes map[string]*mux.Route) { routes["seed"].Handler(status(http.StatusOK)) },
			want:   []string{"POST /api/seed needs credentials"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := check(t, tc.spec, router(tc.change))
			require.Len(t, errs, len(tc.want), "%q", errs)
			for i, want := range tc.want {
				require.Contains(t, errs[i], want)
			}
		})
	}
}
