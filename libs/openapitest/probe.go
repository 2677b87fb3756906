package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// Tags sort the probes into classes, so that a known finding names a class, not one request.
const (
	TagValid       = "valid"
	TagNull        = "null"
	TagWrongType   = "wrong-type"
	TagMissing     = "missing"
	TagExtra       = "extra-member"
	TagEmpty       = "empty"
	TagBounds      = "bounds"
	TagNUL         = "nul"
	TagUnicode     = "unicode"
	TagInvalidUTF8 = "invalid-utf8"
	TagMalformed   = "malformed"
	TagVersion     = "api-version"
	TagTooLarge    = "too-large"
	TagMediaType   = "media-type"
	TagIdempotency = "idempotency"
	TagPathID      = "path-id"
	TagOutage      = "outage"
)

// Problems a probe's answer can have.
const (
	ProblemNoAnswer  = "no answer"
	ProblemServer    = "server error"
	ProblemContract  = "not in the contract" // an undeclared status, or a body its schema refuses
	ProblemAccepted  = "accepted"            // a 2xx for a request the document refuses
	ProblemUndeclKey = "idempotency key undeclared"
)

// oversize is larger than any route's body limit (the largest is 1 MiB).
const oversize = 1<<20 + 4<<10

// probeVersion is an API-Version no deployment serves.
const probeVersion = "1999-01-01"

// Probe configures the property test of one service: Contract.Probe sends every operation of
// the document schema-valid and schema-invalid requests made up from the document itself.
type Probe struct {
	// Base is the service's base URL.
	Base string
	// Credentials set what a security scheme of the document needs on a request, by scheme name
	// (a bearer token, an API key, a signature over the body). An operation whose requirements
	// none of them meet is probed without credentials.
	Credentials map[string]func(*http.Request)
	// Outage, when set, makes the service's database unreachable until restore is called; every
	// operation is then asked once more and must answer a declared status, never a 500.
	Outage func(t testing.TB) (restore func())
}

// Finding is an answer the contract or the API's rules do not allow.
type Finding struct {
	Operation string
	Tag       string
	Case      string
	Problem   string
	Status    int
	Detail    string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s [%s] %s: %s (%d) %s", f.Operation, f.Tag, f.Case, f.Problem, f.Status, f.Detail)
}

// Report is what a probe run found.
type Report struct {
	Requests int
	Findings []Finding
}

// request is one probe: what it tries and the request it sends.
type request struct {
	op      *operation
	tag     string
	name    string
	invalid bool // the document refuses it even if the request validator would not notice
	method  string
	path    string // escaped
	query   string // escaped
	header  http.Header
	body    []byte
	hasBody bool
}

func (r request) build(base string) (*http.Request, error) {
	var body io.Reader
	if r.hasBody {
		body = bytes.NewReader(r.body)
	}
	u := base + r.path
	if r.query != "" {
		u += "?" + r.query
	}
	req, err := http.NewRequestWithContext(context.Background(), r.method, u, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range r.header {
		req.Header[k] = slices.Clone(vs)
	}
	return req, nil
}

// Probe runs the property test; each finding not in KnownFindings fails t, and so does a known
// finding that no longer occurs. It logs the request count and every finding, and appends a line
// to the file OPENAPITEST_REPORT names, if any (make test prints them).
func (c *Contract) Probe(t testing.TB, p Probe) Report {
	t.Helper()
	r := &prober{contract: c, probe: p, client: &http.Client{
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	ops := c.operations()
	for _, op := range ops {
		statuses := map[int]int{}
		for _, req := range r.requests(op) {
			resp := r.send(req, false)
			if resp == nil {
				continue
			}
			statuses[resp.StatusCode]++
			if req.tag == TagValid && resp.StatusCode >= 300 {
				// The variants of a refused request test its refusal only: an example in the document helps.
				t.Logf("%s: the made-up valid request %q was answered %d %s", op.id, req.name, resp.StatusCode, excerpt(resp.body))
			}
		}
		t.Logf("%s %s %s: answers %v", op.id, op.method, op.path, statuses)
	}
	if p.Outage != nil {
		restore := p.Outage(t)
		for _, op := range ops {
			req := r.valid(op)
			req.tag, req.name = TagOutage, "valid, while the database is unreachable"
			r.send(req, true)
		}
		restore()
	}
	r.report(t, ops)
	return Report{Requests: r.count, Findings: r.findings}
}

type prober struct {
	contract *Contract
	probe    Probe
	client   *http.Client
	count    int
	findings []Finding
}

// operation is a documented public operation.
type operation struct {
	id     string
	method string
	path   string
	op     *openapi3.Operation
	params openapi3.Parameters
}

func (c *Contract) operations() []*operation {
	var out []*operation
	for _, path := range c.doc.Paths.InMatchingOrder() {
		if !isPublic(path) {
			continue
		}
		item := c.doc.Paths.Value(path)
		for method, op := range item.Operations() {
			params := slices.Clone(item.Parameters)
			params = append(params, op.Parameters...)
			out = append(out, &operation{id: op.OperationID, method: method, path: path, op: op, params: params})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// ips hands each request its own client address, so no rate limit is reached by the probe alone.
var ips atomic.Uint32

func nextIP() string {
	n := ips.Add(1)
	return fmt.Sprintf("10.%d.%d.%d", 200+n>>16&31, n>>8&255, n&255)
}

// answer is what send saw.
type answer struct {
	StatusCode int
	body       []byte
}

func (r *prober) send(p request, outage bool) *answer {
	r.count++
	req, err := p.build(r.probe.Base)
	if err != nil {
		r.find(p, ProblemNoAnswer, 0, err.Error())
		return nil
	}
	req.Header.Set("X-Forwarded-For", nextIP())
	r.authenticate(p.op, req)
	invalid := p.invalid || r.refused(p)
	resp, err := r.client.Do(req)
	if err != nil {
		r.find(p, ProblemNoAnswer, 0, err.Error())
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		r.find(p, ProblemNoAnswer, resp.StatusCode, err.Error())
		return nil
	}
	if resp.StatusCode >= 500 && !(outage && resp.StatusCode == http.StatusServiceUnavailable) {
		// One finding per answer: an undeclared 500 is the same fault told twice.
		r.find(p, ProblemServer, resp.StatusCode, excerpt(body))
		return &answer{resp.StatusCode, body}
	}
	if invalid && resp.StatusCode < 300 {
		r.find(p, ProblemAccepted, resp.StatusCode, excerpt(body))
	}
	if err := r.contract.validate(req, resp, body); err != nil {
		r.find(p, ProblemContract, resp.StatusCode, firstLine(err.Error()))
	}
	if resp.StatusCode == http.StatusConflict && bytes.Contains(body, []byte(`"idempotency_key_reused"`)) && !documents(p.op, "header", "Idempotency-Key") {
		r.find(p, ProblemUndeclKey, resp.StatusCode, "honours Idempotency-Key but does not document the header")
	}
	return &answer{resp.StatusCode, body}
}

func (r *prober) find(p request, problem string, status int, detail string) {
	r.findings = append(r.findings, Finding{Operation: p.op.id, Tag: p.tag, Case: p.name, Problem: problem, Status: status, Detail: detail})
}

// authenticate signs req for the first of the operation's security requirements the probe's
// credentials meet; a requirement that needs nothing wins.
func (r *prober) authenticate(op *operation, req *http.Request) {
	security := r.contract.doc.Security
	if op.op.Security != nil {
		security = *op.op.Security
	}
	for _, need := range security {
		if len(need) == 0 {
			return
		}
	}
	for _, need := range security {
		var sign []func(*http.Request)
		for scheme := range need {
			if f := r.probe.Credentials[scheme]; f != nil {
				sign = append(sign, f)
			}
		}
		if len(sign) == len(need) {
			for _, f := range sign {
				f(req)
			}
			return
		}
	}
}

// refused reports whether the document refuses the request: its parameters or body do not match.
func (r *prober) refused(p request) bool {
	req, err := p.build(r.probe.Base)
	if err != nil {
		return true
	}
	route, params, err := r.contract.router.FindRoute(req)
	if err != nil {
		return true
	}
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SkipSettingDefaults: true},
	}) != nil
}

func documents(op *operation, in, name string) bool {
	for _, p := range op.params {
		if p.Value != nil && p.Value.In == in && strings.EqualFold(p.Value.Name, name) {
			return true
		}
	}
	return false
}

func (r *prober) report(t testing.TB, ops []*operation) {
	t.Helper()
	present := map[string]bool{}
	for _, op := range ops {
		present[op.id] = true
	}
	matched := make([]int, len(KnownFindings))
	unknown := 0
	for _, f := range r.findings {
		if i := knownIndex(f); i >= 0 {
			matched[i]++
			t.Logf("known finding (%s): %s", KnownFindings[i].Why, f)
			continue
		}
		unknown++
		t.Errorf("finding: %s", f)
	}
	for i, k := range KnownFindings {
		if matched[i] == 0 && slices.ContainsFunc(k.Operations, func(id string) bool { return present[id] }) {
			t.Errorf("known finding %q (%s) no longer occurs here: remove it from openapitest.KnownFindings", k.Why, k)
		}
	}
	title := ""
	if r.contract.doc.Info != nil {
		title = r.contract.doc.Info.Title
	}
	line := fmt.Sprintf("property test of %s (%s): %d operations, %d requests, %d findings (%d known, %d new)",
		title, t.Name(), len(ops), r.count, len(r.findings), len(r.findings)-unknown, unknown)
	t.Log(line)
	if path := os.Getenv("OPENAPITEST_REPORT"); path != "" {
		if err := appendLine(path, line); err != nil {
			t.Errorf("openapitest: report: %v", err)
		}
	}
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(filepath.Clean(path), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func excerpt(body []byte) string {
	const n = 300
	if len(body) > n {
		return string(body[:n]) + "..."
	}
	return string(body)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// encode writes v as JSON with the markers replaced by what they stand for.
func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("openapitest: encode %v: %v", v, err))
	}
	for _, m := range markers {
		b = bytes.ReplaceAll(b, []byte(m[0]), []byte(m[1]))
	}
	return b
}

// escapeQuery encodes a query's values; the markers become the bytes they stand for.
func escapeQuery(values url.Values) string {
	s := values.Encode()
	s = strings.ReplaceAll(s, invalidUTF8, "probe%FF%FE")
	return strings.ReplaceAll(s, loneSurrogate, "probe%ED%A0%80")
}
