// Package httpxtest holds the assertions the services' tests share about httpx's answers.
package httpxtest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// RequireRefused checks that body, answered with got, is the error envelope httpx writes: the
// status, "ok":false, a message, the code (unless code is empty) and the member the error names
// in "field", or no "field" at all when field is empty. msgAndArgs name the case.
func RequireRefused(t testing.TB, got int, body map[string]any, status int, code, field string, msgAndArgs ...any) {
	t.Helper()
	require.Equal(t, status, got, msgAndArgs...)
	require.Equal(t, false, body["ok"], msgAndArgs...)
	require.NotEmpty(t, body["error"], msgAndArgs...)
	if code != "" {
		require.Equal(t, code, body["code"], msgAndArgs...)
	}
	if field != "" {
		require.Equal(t, field, body["field"], msgAndArgs...)
	} else {
		require.NotContains(t, body, "field", msgAndArgs...)
	}
}
