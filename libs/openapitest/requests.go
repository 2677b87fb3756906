package openapitest

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
)

// unique numbers the header values that must differ on every request (Idempotency-Key, webhook-id).
var unique atomic.Uint64

// values are one request's parameters and body, before encoding.
type values struct {
	path, query, header map[string]string
	// fresh are the headers given a new value on every request, so that one probe's
	// Idempotency-Key never makes another a replay.
	fresh   map[string]string // name: the sampled value a probe did not change
	body    any
	hasBody bool
}

// validValues makes up a request the document accepts: every parameter and body member given.
func validValues(op *operation) values {
	v := values{path: map[string]string{}, query: map[string]string{}, header: map[string]string{}, fresh: map[string]string{}}
	for _, ref := range op.params {
		p := ref.Value
		if p == nil || p.Schema == nil {
			continue
		}
		s := p.Schema.Value
		switch p.In {
		case "path":
			v.path[p.Name] = text(sample(s, 0))
		case "query":
			// An optional text parameter with nothing to go by (a cursor) is left out: made up, it is refused.
			if p.Required || s.Example != nil || s.Default != nil || len(s.Enum) > 0 || !s.Type.Is("string") {
				v.query[p.Name] = text(sample(s, 0))
			}
		case "header":
			v.header[p.Name] = text(sample(s, 0))
			if len(s.Enum) == 0 && s.Pattern == "" {
				v.fresh[p.Name] = v.header[p.Name]
			}
		}
	}
	if s := bodySchema(op); s != nil {
		v.body, v.hasBody = sample(s, 0), true
	}
	return v
}

func bodySchema(op *operation) *openapi3.Schema {
	if op.op.RequestBody == nil || op.op.RequestBody.Value == nil {
		return nil
	}
	mt := op.op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

var placeholder = regexp.MustCompile(`\{([^}]+)\}`)

func (v values) request(op *operation, tag, name string) request {
	path := placeholder.ReplaceAllStringFunc(op.path, func(m string) string {
		return escapePath(v.path[m[1:len(m)-1]])
	})
	q := url.Values{}
	for k, val := range v.query {
		q.Set(k, val)
	}
	h := http.Header{}
	for k, val := range v.header {
		if sampled, ok := v.fresh[k]; ok && val == sampled {
			val = fmt.Sprintf("probe-%d", unique.Add(1))
		}
		h.Set(k, strings.NewReplacer(invalidUTF8, "probe\xff\xfe", loneSurrogate, "probe\xed\xa0\x80").Replace(val))
	}
	r := request{op: op, tag: tag, name: name, method: op.method, path: path, query: escapeQuery(q), header: h}
	if v.hasBody {
		r.body, r.hasBody = encode(v.body), true
		h.Set("Content-Type", "application/json")
	}
	return r
}

func (v values) clone() values {
	c := v
	c.path, c.query, c.header = cloneMap(v.path), cloneMap(v.query), cloneMap(v.header)
	return c
}

func cloneMap(m map[string]string) map[string]string { return maps.Clone(m) }

// valid is the operation's valid request.
func (r *prober) valid(op *operation) request {
	return validValues(op).request(op, TagValid, "valid")
}

// requests are the probes of one operation, in the order they are sent.
func (r *prober) requests(op *operation) []request {
	base := validValues(op)
	out := []request{base.request(op, TagValid, "valid")}

	version := base.request(op, TagVersion, "API-Version "+probeVersion)
	version.header.Set("API-Version", probeVersion)
	version.invalid = true
	out = append(out, version)

	for _, ref := range op.params {
		if p := ref.Value; p != nil && p.Schema != nil {
			out = append(out, paramRequests(op, base, p)...)
		}
	}
	if base.hasBody {
		out = append(out, bodyRequests(op, base)...)
	}
	if op.method == http.MethodPost {
		out = append(out, idempotencyRequests(op, base)...)
	}
	return out
}

// paramRequests vary one parameter: absent, and every odd value worth trying.
func paramRequests(op *operation, base values, p *openapi3.Parameter) []request {
	target := map[string]map[string]string{"path": base.path, "query": base.query, "header": base.header}[p.In]
	if target == nil {
		return nil
	}
	at := func(tag, name string, val *string) request {
		v := base.clone()
		m := map[string]map[string]string{"path": v.path, "query": v.query, "header": v.header}[p.In]
		if val == nil {
			delete(m, p.Name)
		} else {
			m[p.Name] = *val
		}
		return v.request(op, tag, fmt.Sprintf("%s %s: %s", p.In, p.Name, name))
	}
	var out []request
	if p.In != "path" {
		out = append(out, at(TagMissing, "absent", nil))
	}
	for _, vr := range paramVariants(p.Schema.Value) {
		s := vr.value.(string)
		if p.In == "header" && !validHeaderValue(s) || p.In == "path" && s == "" {
			continue // the client cannot send it, or it is another path
		}
		tag := vr.tag
		if p.In == "path" {
			tag = TagPathID
		}
		out = append(out, at(tag, vr.name, &s))
	}
	return out
}

// paramVariants are the odd values of a parameter, as text.
func paramVariants(s *openapi3.Schema) []variant {
	var out []variant
	for _, vr := range variants(s) {
		switch v := vr.value.(type) {
		case string:
			out = append(out, vr)
		case float64:
			vr.value = strconv.FormatFloat(v, 'f', -1, 64)
			out = append(out, vr)
		case rawNumber:
			vr.value = string(v)
			out = append(out, vr)
		}
	}
	if !s.Type.Is("string") {
		// variants gives a string only as the wrong type; a parameter is text, so add the odd ones.
		out = append(out, stringVariants(&openapi3.Schema{})...)
	}
	return out
}

func validHeaderValue(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f })
}

// bodyRequests vary the body: its encoding, its size, and each member in turn.
func bodyRequests(op *operation, base values) []request {
	s := bodySchema(op)
	raw := func(tag, name string, body []byte, contentType string, invalid bool) request {
		r := base.request(op, tag, name)
		r.body, r.invalid = body, invalid
		r.header.Set("Content-Type", contentType)
		return r
	}
	valid := encode(base.body)
	// An operation that declares 415 reads strict JSON (docs/decisions.md): another media type
	// and a member given twice are refused there, though no schema can say so.
	strict := op.op.Responses.Status(http.StatusUnsupportedMediaType) != nil
	out := []request{
		raw(TagMediaType, "Content-Type text/plain", valid, "text/plain", strict),
		raw(TagMalformed, "truncated JSON", valid[:len(valid)/2], "application/json", true),
		raw(TagMalformed, "empty body", nil, "application/json", true),
		raw(TagMalformed, "a JSON array", []byte("[]"), "application/json", true),
		raw(TagMalformed, "JSON null", []byte("null"), "application/json", true),
		raw(TagTooLarge, fmt.Sprintf("%d bytes (whitespace, then the valid body)", oversize+len(valid)),
			append(bytes.Repeat([]byte(" "), oversize), valid...), "application/json", false),
	}
	if obj, ok := base.body.(map[string]any); ok && len(obj) > 0 {
		name := slices.Sorted(maps.Keys(obj))[0]
		dup := append([]byte(fmt.Sprintf(`{%q:%s,`, name, encode(obj[name]))), valid[1:]...)
		out = append(out, raw(TagMalformed, "member "+name+" given twice", dup, "application/json", strict))
	}
	for _, m := range objects(s, base.body) {
		if _, ok := get(base.body, m.path).(map[string]any); !ok {
			continue
		}
		v := base.clone()
		v.body = with(base.body, append(slices.Clone(m.path), "probeExtra"), 1.0, false)
		out = append(out, v.request(op, TagExtra, "an unknown member in "+orRoot(m)))
	}
	for _, m := range members(s, base.body, nil, 0) {
		if key, ok := m.path[len(m.path)-1].(string); ok && slices.Contains(m.parent.Required, key) {
			v := base.clone()
			v.body = with(base.body, m.path, nil, true)
			out = append(out, v.request(op, TagMissing, "body "+m.String()+": absent"))
		}
		for _, vr := range variants(m.schema) {
			v := base.clone()
			v.body = with(base.body, m.path, vr.value, false)
			out = append(out, v.request(op, vr.tag, "body "+m.String()+": "+vr.name))
		}
	}
	return out
}

func orRoot(m member) string {
	if len(m.path) == 0 {
		return "the body"
	}
	return m.String()
}

// idempotencyRequests use one Idempotency-Key for two different requests: the second is a
// replay of the first, or idempotency_key_reused, and the document must say which it can be.
func idempotencyRequests(op *operation, base values) []request {
	key := fmt.Sprintf("probe-key-%d", unique.Add(1))
	first := base.request(op, TagIdempotency, "Idempotency-Key, first use")
	first.header.Set("Idempotency-Key", key)
	again := base.request(op, TagIdempotency, "the same Idempotency-Key with another body")
	again.header.Set("Idempotency-Key", key)
	if again.hasBody {
		again.body = append(slices.Clone(again.body), ' ')
	} else {
		again.body, again.hasBody = []byte("{}"), true
		again.header.Set("Content-Type", "application/json")
	}
	return []request{first, again}
}

// text writes a sampled value as a parameter's text.
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(v)
}

func escapePath(s string) string {
	s = url.PathEscape(s)
	s = strings.ReplaceAll(s, invalidUTF8, "probe%FF%FE")
	return strings.ReplaceAll(s, loneSurrogate, "probe%ED%A0%80")
}

// get returns the value at path in root.
func get(root any, path []any) any {
	for _, p := range path {
		switch r := root.(type) {
		case map[string]any:
			root = r[p.(string)]
		case []any:
			root = r[p.(int)]
		default:
			return nil
		}
	}
	return root
}
