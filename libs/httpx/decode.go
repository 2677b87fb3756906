package httpx

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/bizassist/bizassist/libs/apperr"
)

// DefaultMaxBody is the body limit for endpoints that do not set their own.
const DefaultMaxBody int64 = 64 << 10

// strict are the decoding rules the API documents: member names match exactly (case included),
// a name given twice is refused, and so is a member the request type does not have, a string
// that is not UTF-8 and a null for a member that does not take any JSON.
var strict = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
	json.WithUnmarshalers(json.UnmarshalFromFunc(refuseNull)),
)

// lenient are the rules of LenientJSONVersion, kept for clients that pin it: encoding/json v1's.
var lenient = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(true),
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
)

// Decode reads one JSON object from the body into dst with the encoding/json v2 semantics
// (github.com/go-json-experiment/json). It refuses a body that is not declared
// application/json (415), bodies over maxBytes (413), malformed JSON, unknown, duplicate or
// differently-cased member names, wrong types and trailing data, each with an error naming the
// problem. dst should be a pointer to a struct whose optional fields are pointers or zero-valued.
// A client pinning LenientJSONVersion gets that version's rules.
func Decode(w http.ResponseWriter, r *http.Request, dst any, maxBytes int64) error {
	opts := strict
	if r.Header.Get(APIVersionHeader) == LenientJSONVersion {
		opts = lenient
	} else if err := RequireJSON(r); err != nil {
		return err
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBody
	}
	if r.ContentLength > maxBytes {
		return tooLarge(maxBytes)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
	if err != nil {
		return decodeError(err, maxBytes)
	}
	if opts == lenient {
		// v1 read invalid UTF-8 as U+FFFD; members that take raw JSON get that reading too.
		body = bytes.ToValidUTF8(body, []byte(string(utf8.RuneError)))
	}
	if err := refuseNUL(body); err != nil {
		return err
	}
	if err := json.Unmarshal(body, dst, opts); err != nil {
		return decodeError(err, maxBytes)
	}
	return nil
}

// refuseNUL refuses a U+0000 in any string of body, member names included: JSON allows it, but no
// PostgreSQL text or jsonb holds it (SQLSTATE 22021), wherever in a request it would be stored.
// Malformed JSON is left to the decoder, which says what is wrong.
func refuseNUL(body []byte) error {
	// In JSON text a NUL can only be written \u0000 (a raw control byte is invalid JSON): a body
	// without those six bytes, almost all, is not tokenized a second time.
	if !bytes.Contains(body, []byte(`\u0000`)) {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		if tok.Kind() == '"' && strings.IndexByte(tok.String(), 0) >= 0 {
			return apperr.InvalidField(fieldPath(dec.StackPointer()), "must not contain the character U+0000")
		}
	}
}

// errNull is a null sent for a member that does not take it.
var errNull = errors.New("null is not a value of this member")

// takesAnyJSON are the member types whose handler judges the JSON itself, null included.
var takesAnyJSON = map[reflect.Type]bool{reflect.TypeFor[stdjson.RawMessage](): true, reflect.TypeFor[jsontext.Value](): true}

// refuseNull refuses null for every member but those that take any JSON: encoding/json v1 read
// null as absent, so that "limit":null answered as if no limit had been sent.
func refuseNull(dec *jsontext.Decoder, v any) error {
	t := reflect.TypeOf(v).Elem()
	if dec.PeekKind() != 'n' || t.Kind() == reflect.Interface || takesAnyJSON[t] {
		return errors.ErrUnsupported // decode as usual
	}
	return &json.SemanticError{GoType: t, JSONKind: 'n', Err: errNull}
}

// RequireJSON refuses a request whose Content-Type is not JSON (application/json or a
// +json type), so that a form post or text/plain is never read as JSON.
func RequireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	media, _, err := mime.ParseMediaType(ct)
	if err == nil && (media == "application/json" || strings.HasSuffix(media, "+json")) {
		return nil
	}
	if ct == "" {
		ct = "none"
	}
	return &apperr.Error{Kind: apperr.KindUnsupportedMediaType, Code: apperr.CodeUnsupportedMediaType, Field: "Content-Type",
		Message: fmt.Sprintf("Content-Type must be application/json, not %s", ct)}
}

func tooLarge(maxBytes int64) error {
	return apperr.New(apperr.KindTooLarge, apperr.CodeBodyTooLarge,
		fmt.Sprintf("request body is larger than %d bytes", maxBytes))
}

func decodeError(err error, maxBytes int64) error {
	var (
		maxErr    *http.MaxBytesError
		syntaxErr *jsontext.SyntacticError
		semErr    *json.SemanticError
	)
	switch {
	case errors.As(err, &maxErr):
		return tooLarge(maxBytes)
	case errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &syntaxErr):
		return apperr.Invalid(apperr.CodeMalformedJSON, "request body is empty; a JSON object is required")
	case errors.As(err, &syntaxErr) && errors.Is(syntaxErr.Err, jsontext.ErrDuplicateName):
		field := fieldPath(syntaxErr.JSONPointer)
		return &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeDuplicateField, Field: field,
			Message: fmt.Sprintf("%s: given more than once", field)}
	case errors.As(err, &syntaxErr):
		if errors.Is(syntaxErr.Err, io.ErrUnexpectedEOF) {
			if syntaxErr.ByteOffset == 0 {
				return apperr.Invalid(apperr.CodeMalformedJSON, "request body is empty; a JSON object is required")
			}
			return apperr.Invalid(apperr.CodeMalformedJSON, "request body is truncated JSON")
		}
		if field := fieldPath(syntaxErr.JSONPointer); field != "" {
			// Inside a member: invalid UTF-8 or an unpaired surrogate in a string, most often.
			return &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeMalformedJSON, Field: field,
				Message: fmt.Sprintf("%s: not valid JSON text (at byte %d: %v)", field, syntaxErr.ByteOffset, syntaxErr.Err)}
		}
		return apperr.Invalid(apperr.CodeMalformedJSON,
			fmt.Sprintf("request body is not valid JSON (at byte %d)", syntaxErr.ByteOffset))
	case errors.As(err, &semErr) && errors.Is(semErr.Err, json.ErrUnknownName):
		field := fieldPath(semErr.JSONPointer)
		return &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeUnknownField, Field: field,
			Message: fmt.Sprintf("%s: unknown field", field)}
	case errors.As(err, &semErr):
		field := fieldPath(semErr.JSONPointer)
		if field == "" {
			return apperr.Invalid(apperr.CodeMalformedJSON, "request body must be a JSON object")
		}
		return &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeInvalidType, Field: field,
			Message: fmt.Sprintf("%s: must be %s, not %s", field, jsonTypeName(semErr.GoType), valueName(semErr))}
	default:
		return apperr.Invalid(apperr.CodeMalformedJSON, "request body could not be decoded")
	}
}

// fieldPath writes a JSON pointer the way the API names fields: "/leads/0/email" is
// "leads[0].email".
func fieldPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// jsonTypeName names a Go type the way a JSON client thinks of it.
func jsonTypeName(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a valid value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	default:
		return "a " + t.Kind().String()
	}
}

// valueName says what the client sent: the number itself (2.5 for an integer field), else its kind.
func valueName(e *json.SemanticError) string {
	if e.JSONKind == '0' && len(e.JSONValue) > 0 && len(e.JSONValue) <= 32 {
		return string(e.JSONValue)
	}
	if e.JSONKind == 0 {
		return "that value"
	}
	return e.JSONKind.String()
}
