// Package apperr defines the error kinds every service returns and the stable machine codes that
// clients may switch on. Transport code maps a Kind to an HTTP status in exactly one place
// (httpx.Fail); application code only says what went wrong.
package apperr

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

const (
	KindInternal             Kind = iota // a fault of ours; never shown in detail
	KindInvalid                          // the request is wrong and must be changed
	KindUnauthenticated                  // no or bad credentials
	KindForbidden                        // credentials are fine but do not allow this
	KindNotFound                         // the addressed resource does not exist for this caller
	KindConflict                         // the request conflicts with the current state
	KindTooLarge                         // the body is over the accepted size
	KindRateLimited                      // too many requests; retry after a while
	KindQuotaExceeded                    // a plan allowance is spent; upgrade or wait for the reset
	KindUnavailable                      // a dependency is down; retry later
	KindUnsupportedMediaType             // the body is not in a format the route reads
	KindMethodNotAllowed                 // the path exists but not for this method
)

// Stable machine codes shared by all services. Services may add their own codes; these are the
// ones the shared libraries emit.
const (
	CodeInternal             = "internal"
	CodeMalformedJSON        = "malformed_json"
	CodeUnknownField         = "unknown_field"
	CodeInvalidType          = "invalid_type"
	CodeMissingField         = "missing_field"
	CodeInvalidField         = "invalid_field"
	CodeBodyTooLarge         = "body_too_large"
	CodeUnauthenticated      = "unauthenticated"
	CodeInvalidToken         = "invalid_token"
	CodeForbidden            = "forbidden"
	CodeNotFound             = "not_found"
	CodeRateLimited          = "rate_limited"
	CodeUnavailable          = "unavailable"
	CodeDuplicateField       = "duplicate_field"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeMethodNotAllowed     = "method_not_allowed"
)

// Error is an application error with a kind, a stable code and a message safe to show a client.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	// Field names the request field at fault, when there is one.
	Field string
	// Details are extra envelope fields such as upgradeUrl; keys must not collide with ok, error,
	// code or field.
	Details map[string]any
	// Err is the underlying cause; it is logged, never sent.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// With returns a copy of e carrying one more detail field.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		c.Details[k] = v
	}
	c.Details[key] = value
	return &c
}

// Wrap returns a copy of e with cause as its underlying error.
func (e *Error) Wrap(cause error) *Error {
	c := *e
	c.Err = cause
	return &c
}

func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Invalid reports a request error that is not tied to one field.
func Invalid(code, message string) *Error { return New(KindInvalid, code, message) }

// InvalidField reports a field with a value that is not accepted; the message says what is.
func InvalidField(field, message string) *Error {
	return &Error{Kind: KindInvalid, Code: CodeInvalidField, Field: field, Message: field + ": " + message}
}

// MissingField reports a required field that is absent or empty.
func MissingField(field string) *Error {
	return &Error{Kind: KindInvalid, Code: CodeMissingField, Field: field, Message: field + " is required"}
}

func Unauthenticated(code, message string) *Error { return New(KindUnauthenticated, code, message) }
func Forbidden(code, message string) *Error       { return New(KindForbidden, code, message) }
func NotFound(code, message string) *Error        { return New(KindNotFound, code, message) }
func Conflict(code, message string) *Error        { return New(KindConflict, code, message) }
func QuotaExceeded(code, message string) *Error   { return New(KindQuotaExceeded, code, message) }
func Unavailable(code, message string) *Error     { return New(KindUnavailable, code, message) }

// KindOf returns the kind of the first *Error in err's chain, or KindInternal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// CodeOf returns the code of the first *Error in err's chain, or CodeInternal.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}
