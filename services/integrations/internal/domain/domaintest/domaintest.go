// Package domaintest holds what the domain's and the app's tests both need to build domain inputs.
package domaintest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Body decodes js into the field map an inbound request's body arrives as (domain.ParseInbound's
// input).
func Body(t testing.TB, js string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	return m
}
