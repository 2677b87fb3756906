package openapitest

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxDepth bounds how deep sample and variants walk nested schemas.
const maxDepth = 4

// Odd but well-formed strings a service must store or refuse, never fail on. nulString is
// valid JSON and valid per any string schema, yet PostgreSQL text cannot hold it.
const (
	nulString       = "probe\u0000nul"
	oddUnicode      = "\u202eprobe\U0001F600e\u0301\uFEFF\u00A0"
	fullWidthDigits = "\uFF11\uFF12\uFF13\uFF14\uFF15"
	// The encoded body has these markers replaced (json.Marshal would escape or repair what they
	// stand for): a lone surrogate escape, which names no character, and bytes that are not UTF-8.
	loneSurrogate = "probe-lone-surrogate"
	invalidUTF8   = "probe-invalid-utf8"
)

// markers are what the encoded body's markers become.
var markers = [][2]string{{`"` + loneSurrogate + `"`, `"probe\ud800"`}, {`"` + invalidUTF8 + `"`, "\"probe\xff\xfe\""}}

// sample makes up a value that s accepts: its example, default or first enum member when it has
// one, otherwise the smallest value of its type that meets its bounds.
func sample(s *openapi3.Schema, depth int) any {
	switch {
	case s == nil:
		return "probe"
	case s.Example != nil:
		return s.Example
	case s.Default != nil:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.OneOf) > 0:
		return sample(s.OneOf[0].Value, depth)
	case len(s.AnyOf) > 0:
		return sample(s.AnyOf[0].Value, depth)
	case len(s.AllOf) > 0 && s.Type.IsEmpty() && len(s.Properties) == 0:
		return sample(s.AllOf[0].Value, depth)
	}
	switch {
	case s.Type.Is("object") || (s.Type.IsEmpty() && len(s.Properties) > 0):
		out := map[string]any{}
		if depth >= maxDepth {
			return out
		}
		for name, p := range s.Properties {
			if p.Value != nil && p.Value.ReadOnly {
				continue
			}
			out[name] = sample(p.Value, depth+1)
		}
		return out
	case s.Type.Is("array"):
		out := []any{}
		if depth >= maxDepth {
			return out
		}
		for range max(s.MinItems, 1) {
			out = append(out, sample(itemSchema(s), depth+1))
		}
		return out
	case s.Type.Is("integer"), s.Type.Is("number"):
		switch {
		case s.Min != nil:
			return *s.Min
		case s.Max != nil && *s.Max < 1:
			return *s.Max
		}
		return 1.0
	case s.Type.Is("boolean"):
		return true
	}
	return sampleString(s)
}

// stringsByFormat are values of the string formats the documents use.
var stringsByFormat = map[string]string{
	"email":     "probe@example.com",
	"uri":       "https://example.com/probe",
	"url":       "https://example.com/probe",
	"date-time": "2026-01-02T03:04:05.000Z",
	"date":      "2026-01-02",
	"uuid":      "00000000-0000-4000-8000-000000000000",
}

// patternCandidates are tried, in order, against a pattern no format or example satisfies.
var patternCandidates = []string{"probe", "1", "probe_01ARZ3NDEKTSV4RRFFQ69G5FAV", "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV", "+15124723000"}

func sampleString(s *openapi3.Schema) string {
	v, ok := stringsByFormat[s.Format]
	if !ok {
		v = "probe"
	}
	if s.Pattern != "" {
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(v) {
			for _, c := range patternCandidates {
				if re.MatchString(c) {
					v = c
					break
				}
			}
		}
	}
	if n := int(s.MinLength); len([]rune(v)) < n {
		v += strings.Repeat("a", n-len([]rune(v)))
	}
	if s.MaxLength != nil && uint64(len([]rune(v))) > *s.MaxLength {
		v = string([]rune(v)[:*s.MaxLength])
	}
	return v
}

func itemSchema(s *openapi3.Schema) *openapi3.Schema {
	if s.Items == nil {
		return nil
	}
	return s.Items.Value
}

// variant is one change to a valid value: what it tries and the value it leaves.
type variant struct {
	name  string
	tag   string
	value any
}

// variants are the values worth trying in place of a valid value of s: wrong types, null, the
// bounds and one past them, values outside the enum, and odd strings. Whether each is valid is
// for the document to say (the caller validates the request), not for this list.
func variants(s *openapi3.Schema) []variant {
	if s == nil {
		return nil
	}
	out := []variant{{name: "null", tag: TagNull, value: nil}}
	typed := func(t string) bool { return s.Type.Is(t) }
	if !typed("string") {
		out = append(out, variant{name: "a string", tag: TagWrongType, value: "probe"})
	}
	if !typed("integer") && !typed("number") {
		out = append(out, variant{name: "a number", tag: TagWrongType, value: 12345.0})
	}
	if !typed("boolean") {
		out = append(out, variant{name: "a boolean", tag: TagWrongType, value: true})
	}
	if !typed("object") {
		out = append(out, variant{name: "an object", tag: TagWrongType, value: map[string]any{}})
	}
	if !typed("array") {
		out = append(out, variant{name: "an array", tag: TagWrongType, value: []any{}})
	}
	if len(s.Enum) > 0 {
		out = append(out, variant{name: "outside the enum", tag: TagBounds, value: "probe-not-in-enum"})
	}
	switch {
	case typed("string"):
		out = append(out, stringVariants(s)...)
	case typed("integer"), typed("number"):
		out = append(out, numberVariants(s)...)
	case typed("array"):
		out = append(out, arrayVariants(s)...)
	}
	return out
}

func stringVariants(s *openapi3.Schema) []variant {
	out := []variant{
		{name: "empty", tag: TagEmpty, value: ""},
		{name: "a NUL character", tag: TagNUL, value: nulString},
		{name: "odd unicode (bidi override, emoji, combining mark, BOM)", tag: TagUnicode, value: oddUnicode},
		{name: "full-width digits", tag: TagUnicode, value: fullWidthDigits},
		{name: "an escaped lone surrogate", tag: TagInvalidUTF8, value: loneSurrogate},
		{name: "bytes that are not UTF-8", tag: TagInvalidUTF8, value: invalidUTF8},
		{name: "10,000 characters", tag: TagBounds, value: strings.Repeat("a", 10000)},
	}
	if s.MinLength > 1 {
		out = append(out, variant{name: fmt.Sprintf("%d characters (minLength-1)", s.MinLength-1), tag: TagBounds,
			value: strings.Repeat("a", int(s.MinLength)-1)})
	}
	if s.MaxLength != nil {
		n := int(*s.MaxLength)
		// Two-byte characters: the bound counts characters, not bytes.
		out = append(out,
			variant{name: fmt.Sprintf("%d characters é (maxLength)", n), tag: TagBounds, value: strings.Repeat("é", n)},
			variant{name: fmt.Sprintf("%d characters (maxLength+1)", n+1), tag: TagBounds, value: strings.Repeat("a", n+1)})
	}
	return out
}

func numberVariants(s *openapi3.Schema) []variant {
	out := []variant{
		{name: "a fraction", tag: TagWrongType, value: 2.5},
		{name: "-1", tag: TagBounds, value: -1.0},
		{name: "0", tag: TagBounds, value: 0.0},
		{name: "past int64", tag: TagBounds, value: rawNumber("99999999999999999999")},
	}
	if s.Min != nil {
		out = append(out, variant{name: "minimum", tag: TagBounds, value: *s.Min},
			variant{name: "minimum-1", tag: TagBounds, value: *s.Min - 1})
	}
	if s.Max != nil {
		out = append(out, variant{name: "maximum", tag: TagBounds, value: *s.Max},
			variant{name: "maximum+1", tag: TagBounds, value: *s.Max + 1})
	}
	return out
}

func arrayVariants(s *openapi3.Schema) []variant {
	item := sample(itemSchema(s), 1)
	out := []variant{{name: "empty", tag: TagEmpty, value: []any{}}}
	if s.MaxItems != nil {
		n := int(*s.MaxItems)
		out = append(out, variant{name: fmt.Sprintf("%d items (maxItems+1)", n+1), tag: TagBounds, value: slices.Repeat([]any{item}, n+1)})
	}
	return out
}

// rawNumber is a JSON number written as is, beyond what a float64 holds exactly.
type rawNumber string

func (n rawNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

// member is a place in a request body: its path from the root and the schema there.
type member struct {
	path   []any // string keys and int indexes
	schema *openapi3.Schema
	parent *openapi3.Schema
}

func (m member) String() string {
	var b strings.Builder
	for _, p := range m.path {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, p)
		}
	}
	return b.String()
}

// members lists the places of value that s describes: every property of every object and the
// first item of every array, depth first.
func members(s *openapi3.Schema, value any, path []any, depth int) []member {
	if s == nil || depth >= maxDepth {
		return nil
	}
	if len(s.OneOf) > 0 {
		s = s.OneOf[0].Value
	} else if len(s.AnyOf) > 0 {
		s = s.AnyOf[0].Value
	}
	var out []member
	switch v := value.(type) {
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[name].Value
			if p == nil || p.ReadOnly {
				continue
			}
			at := append(slices.Clone(path), name)
			out = append(out, member{path: at, schema: p, parent: s})
			if child, ok := v[name]; ok {
				out = append(out, members(p, child, at, depth+1)...)
			}
		}
	case []any:
		if len(v) > 0 {
			at := append(slices.Clone(path), 0)
			out = append(out, member{path: at, schema: itemSchema(s), parent: s})
			out = append(out, members(itemSchema(s), v[0], at, depth+1)...)
		}
	}
	return out
}

// objects lists the places of value that are objects, with their schemas.
func objects(s *openapi3.Schema, value any) []member {
	out := []member{{schema: s}}
	for _, m := range members(s, value, nil, 0) {
		if m.schema != nil && (m.schema.Type.Is("object") || len(m.schema.Properties) > 0) {
			out = append(out, m)
		}
	}
	return out
}

// with returns a deep copy of root with the value at path replaced (or removed when absent).
func with(root any, path []any, value any, absent bool) any {
	if len(path) == 0 {
		return value
	}
	switch r := root.(type) {
	case map[string]any:
		out := maps.Clone(r)
		key, _ := path[0].(string)
		if len(path) == 1 && absent {
			delete(out, key)
			return out
		}
		out[key] = with(r[key], path[1:], value, absent)
		return out
	case []any:
		out := slices.Clone(r)
		i, _ := path[0].(int)
		if i < len(out) {
			out[i] = with(r[i], path[1:], value, absent)
		}
		return out
	}
	return root
}
