// Package openapitest checks real HTTP exchanges against a service's OpenAPI document, so the
// published contract and the code cannot drift apart unnoticed.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
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
	doc    *openapi3.T
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
	return &Contract{doc: doc, router: router}
}

// Documents reports whether req's method and path are an operation of the document.
func (c *Contract) Documents(req *http.Request) bool {
	_, _, err := c.router.FindRoute(req)
	return err == nil
}

// Check validates resp, the answer to req, against the documented response for its route and
// status. The request must be documented too. body is resp's body, already read.
func (c *Contract) Check(t testing.TB, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	if err := c.validate(req, resp, body); err != nil {
		t.Errorf("openapitest: %s %s -> %d does not match the contract: %v\nbody: %s", req.Method, req.URL.Path, resp.StatusCode, err, body)
	}
}

// validate says why resp, the answer to req, is not what the document allows, or nil.
func (c *Contract) validate(req *http.Request, resp *http.Response, body []byte) error {
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("%s %s is not documented: %w", req.Method, req.URL.Path, err)
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
		return err
	}
	return nil
}

// Exchange is a request's answer, read whole.
type Exchange struct {
	Status int
	Header http.Header
	Body   []byte
	// JSON is the decoded body when it is a JSON object, nil otherwise.
	JSON map[string]any
}

// Do sends req with the default client, checks the answer against the contract and returns it.
func (c *Contract) Do(t testing.TB, req *http.Request) Exchange {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("openapitest: %s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("openapitest: read %s %s: %v", req.Method, req.URL, err)
	}
	c.Check(t, req, resp, body)
	x := Exchange{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(body, &x.JSON); err != nil {
			t.Errorf("openapitest: %s %s: body is not a JSON object: %v\n%s", req.Method, req.URL, err, body)
		}
	}
	return x
}

// JSONRequest is a request to url declaring a JSON body: body itself when a string (malformed
// JSON too), none when nil, else body encoded.
func JSONRequest(t testing.TB, method, url string, body any) *http.Request {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			t.Fatalf("openapitest: encode %T: %v", body, err)
		}
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("openapitest: %s %s: %v", method, url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}
