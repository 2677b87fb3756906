package httpx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/bizassist/bizassist/libs/apperr"
)

// DefaultMaxBody is the body limit for endpoints that do not set their own.
const DefaultMaxBody int64 = 64 << 10

// Decode reads one JSON object from the body into dst. It rejects bodies over maxBytes (413),
// malformed JSON, unknown fields, wrong types and trailing data, each with an error naming the
// problem. dst should be a pointer to a struct whose optional fields are pointers or zero-valued.
func Decode(w http.ResponseWriter, r *http.Request, dst any, maxBytes int64) error {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBody
	}
	if r.ContentLength > maxBytes {
		return tooLarge(maxBytes)
	}
	body := http.MaxBytesReader(w, r.Body, maxBytes)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err, maxBytes)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge(maxBytes)
		}
		return apperr.Invalid(apperr.CodeMalformedJSON, "request body must contain a single JSON object")
	}
	return nil
}

func tooLarge(maxBytes int64) error {
	return apperr.New(apperr.KindTooLarge, apperr.CodeBodyTooLarge,
		fmt.Sprintf("request body is larger than %d bytes", maxBytes))
}

func decodeError(err error, maxBytes int64) error {
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
		maxErr    *http.MaxBytesError
	)
	switch {
	case errors.As(err, &maxErr):
		return tooLarge(maxBytes)
	case errors.Is(err, io.EOF):
		return apperr.Invalid(apperr.CodeMalformedJSON, "request body is empty; a JSON object is required")
	case errors.As(err, &syntaxErr):
		return apperr.Invalid(apperr.CodeMalformedJSON,
			fmt.Sprintf("request body is not valid JSON (at byte %d)", syntaxErr.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Invalid(apperr.CodeMalformedJSON, "request body is truncated JSON")
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return apperr.Invalid(apperr.CodeMalformedJSON, "request body must be a JSON object")
		}
		return &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeInvalidType, Field: typeErr.Field,
			Message: fmt.Sprintf("%s: must be %s, not %s", typeErr.Field, jsonTypeName(typeErr.Type.Kind().String()), typeErr.Value)}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeUnknownField, Field: field,
			Message: fmt.Sprintf("%s: unknown field", field)}
	default:
		return apperr.Invalid(apperr.CodeMalformedJSON, "request body could not be decoded: "+err.Error())
	}
}

// jsonTypeName names Go kinds the way a JSON client thinks of them.
func jsonTypeName(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	default:
		return "a " + goKind
	}
}
