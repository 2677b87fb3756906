package openapitest

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gorilla/mux"
)

// Public is the path prefix of the routes the ingress serves; CheckRoutes compares those only
// (service-to-service /internal routes are documented as x-internal but need not be).
const Public = "/api"

// CheckRoutes makes route registration and the contract agree: every /api route and method the
// service's router registers is a documented operation, every documented /api operation is
// registered, and every operation has an operationId. handler must be the service's
// *mux.Router (its Handler()). HEAD is accepted wherever GET is documented, and OPTIONS (CORS
// preflight, which the router answers on every path anyway) wherever GET is.
//
// It then asks each operation once, without any credentials, and checks that its documented
// security is what the code does: an operation that needs only a bearer token or an API key answers 401, a
// public one (security [] or an empty requirement) never answers 401 or 403, and one that needs
// an API key answers a 4xx.
func (c *Contract) CheckRoutes(t testing.TB, handler http.Handler) {
	t.Helper()
	router, ok := handler.(*mux.Router)
	if !ok {
		t.Fatalf("openapitest: CheckRoutes needs the service's *mux.Router, got %T", handler)
	}
	registered, err := registeredOperations(router)
	if err != nil {
		t.Fatalf("openapitest: walk routes: %v", err)
	}
	documented := map[string]bool{}
	for path, item := range c.doc.Paths.Map() {
		if !isPublic(path) {
			continue
		}
		for method, op := range item.Operations() {
			key := method + " " + path
			documented[key] = true
			if op.OperationID == "" {
				t.Errorf("openapitest: %s has no operationId", key)
			}
			if !registered[key] {
				t.Errorf("openapitest: %s is documented but the router does not register it", key)
			}
		}
	}
	for _, key := range sortedKeys(registered) {
		method, path, _ := strings.Cut(key, " ")
		implied := (method == http.MethodHead || method == http.MethodOptions) && documented[http.MethodGet+" "+path]
		if !documented[key] && !implied {
			t.Errorf("openapitest: %s is registered but not in the contract (api/openapi.yaml)", key)
		}
	}
	c.checkSecurity(t, handler)
}

func (c *Contract) checkSecurity(t testing.TB, handler http.Handler) {
	t.Helper()
	for path, item := range c.doc.Paths.Map() {
		if !isPublic(path) {
			continue
		}
		for method, op := range item.Operations() {
			security := c.doc.Security
			if op.Security != nil {
				security = *op.Security
			}
			public, bearerOnly := len(security) == 0, len(security) > 0
			for _, req := range security {
				public = public || len(req) == 0
				_, bearer := req["bearer"]
				_, apiKey := req["apiKey"]
				// Tokens and API keys go through the same verifier, which answers 401 without one.
				bearerOnly = bearerOnly && len(req) == 1 && (bearer || apiKey)
			}
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, httptest.NewRequest(method, placeholders.ReplaceAllString(path, "00000000-0000-0000-0000-000000000000"), nil))
			got := rec.Code
			switch {
			case public && (got == http.StatusUnauthorized || got == http.StatusForbidden):
				t.Errorf("openapitest: %s %s is documented as public but answers %d without credentials", method, path, got)
			case bearerOnly && got != http.StatusUnauthorized:
				t.Errorf("openapitest: %s %s is documented as bearer-protected but answers %d without a token", method, path, got)
			case !public && !bearerOnly && (got < 400 || got > 499):
				t.Errorf("openapitest: %s %s needs credentials (%v) but answers %d without them", method, path, security, got)
			}
		}
	}
}

var (
	placeholders = regexp.MustCompile(`\{[^}]*\}`)
	// A gorilla/mux variable may carry a pattern ({id:[0-9]+}); the contract names it only.
	muxPattern = regexp.MustCompile(`\{([^}:]+):[^}]*\}`)
)

// registeredOperations lists "METHOD /path" for every public route of router. Routes that only
// group others (a PathPrefix with a subrouter) are skipped; a public route without methods is
// an error, since it would answer every method.
func registeredOperations(router *mux.Router) (map[string]bool, error) {
	parents := map[*mux.Route]bool{}
	if err := router.Walk(func(_ *mux.Route, _ *mux.Router, ancestors []*mux.Route) error {
		for _, a := range ancestors {
			parents[a] = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	err := router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		if parents[route] {
			return nil
		}
		path, err := route.GetPathTemplate()
		if err != nil {
			return err
		}
		path = muxPattern.ReplaceAllString(path, "{$1}")
		if !isPublic(path) {
			return nil
		}
		methods, err := route.GetMethods()
		if err != nil {
			return err
		}
		for _, m := range methods {
			out[strings.ToUpper(m)+" "+path] = true
		}
		return nil
	})
	return out, err
}

func isPublic(path string) bool { return path == Public || strings.HasPrefix(path, Public+"/") }

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
