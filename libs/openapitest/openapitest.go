// Package openapitest checks real HTTP exchanges against a service's OpenAPI document, so the
// published contract and the code cannot drift apart unnoticed.
package openapitest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

func init() {
	// An HTML page (the API reference) is checked as a string, like text/plain.
	if openapi3filter.RegisteredBodyDecoder("text/html") == nil {
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.RegisteredBodyDecoder("text/plain"))
	}
}

// Contract is a loaded, validated OpenAPI document.
type Contract struct {
	router routers.Router
}

// Load parses and validates spec; the test fails if the document itself is invalid.
func Load(t testing.TB, spec []byte) *Contract {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		t.Fatalf("openapitest: load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapitest: invalid document: %v", err)
	}
	doc.Servers = nil // match requests on any host
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("openapitest: router: %v", err)
	}
	return &Contract{router: router}
}

// Check validates resp, the answer to req, against the documented response for its route and
// status. The request must be documented too. body is resp's body, already read.
func (c *Contract) Check(t testing.TB, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		t.Errorf("openapitest: %s %s is not documented: %v", req.Method, req.URL.Path, err)
		return
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, ExcludeRequestBody: true},
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("openapitest: %s %s -> %d does not match the contract: %v\nbody: %s",
			req.Method, req.URL.Path, resp.StatusCode, err, body)
	}
}
