package httpx_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

// freeForm has members that take any JSON, as chat's context, log-usage's meta and the inbound
// webhook's extras do.
type freeForm struct {
	Name   string                     `json:"name"`
	Meta   json.RawMessage            `json:"meta"`
	Extras map[string]json.RawMessage `json:"extras"`
	Any    any                        `json:"any"`
}

func decodeFreeForm(t *testing.T, body, version string) (freeForm, error) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set(httpx.APIVersionHeader, version)
	}
	var dst freeForm
	err := httpx.Decode(httptest.NewRecorder(), req, &dst, 4096)
	return dst, err
}

// issue 37, item 1: a NUL is valid JSON, but no PostgreSQL text or jsonb holds it; wherever it is
// in a body (a free-form member's depths included) the answer is a 400 naming where.
func TestDecodeRefusesNULAnywhereNamingWhere(t *testing.T) {
	t.Parallel()
	for body, field := range map[string]string{
		`{"meta":{"k":["a","b\u0000"]}}`:    "meta.k[1]",
		`{"extras":{"note":"x\u0000"}}`:     "extras.note",
		`{"extras":{"n\u0000te":"x"}}`:      "extras.n\u0000te",
		`{"any":[{"deep":"\u0000"}]}`:       "any[0].deep",
		`{"name":"\u0000","meta":"\u0000"}`: "name",
	} {
		for _, version := range []string{"", httpx.LenientJSONVersion} {
			_, err := decodeFreeForm(t, body, version)
			var appErr *apperr.Error
			require.ErrorAs(t, err, &appErr, body)
			require.Equal(t, apperr.CodeInvalidField, appErr.Code, body)
			require.Equal(t, field, appErr.Field, body)
			require.Equal(t, field+": must not contain the character U+0000", appErr.Message, body)
		}
	}
}

// Only the decoded text counts: an escaped backslash before "u0000" is six ordinary characters.
func TestDecodeKeepsAnEscapedBackslashBeforeU0000(t *testing.T) {
	t.Parallel()
	got, err := decodeFreeForm(t, `{"name":"C:\\u0000"}`, "")
	require.NoError(t, err)
	require.Equal(t, `C:\u0000`, got.Name)
}

// Members that take any JSON take null too: their handler judges it (an inbound extra that is
// null is documented as ignored).
func TestDecodeLeavesNullToFreeFormMembers(t *testing.T) {
	t.Parallel()
	got, err := decodeFreeForm(t, `{"meta":null,"extras":{"x":null},"any":null}`, "")
	require.NoError(t, err)
	require.JSONEq(t, `null`, string(got.Meta))
	require.JSONEq(t, `null`, string(got.Extras["x"]))
	_, err = decodeFreeForm(t, `{"extras":null}`, "")
	var appErr *apperr.Error
	require.ErrorAs(t, err, &appErr)
	require.Equal(t, "extras", appErr.Field)
	require.Equal(t, "extras: must be an object, not null", appErr.Message)
}

// The version before strict bodies keeps encoding/json v1's readings: null is absent and invalid
// UTF-8 becomes U+FFFD, which PostgreSQL stores.
func TestDecodeKeepsTheLenientVersionsReadingOfNullAndBadUTF8(t *testing.T) {
	t.Parallel()
	got, err := decodeFreeForm(t, "{\"name\":null,\"extras\":{\"k\":\"a\xffb\"}}", httpx.LenientJSONVersion)
	require.NoError(t, err)
	require.Empty(t, got.Name)
	require.Equal(t, `"a�b"`, string(got.Extras["k"]), "a member that takes any JSON gets it as valid UTF-8 too")
}
