package authjwt_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
)

type nameRequest struct {
	Name string `json:"name"`
}

// serveAs runs h on a JSON POST of body by c (no caller when c is nil) and returns the status
// and the envelope's code.
func serveAs(t *testing.T, h http.Handler, c *authjwt.Caller, body string) (int, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if c != nil {
		r = r.WithContext(authjwt.WithCaller(r.Context(), *c))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var env struct {
		Code string `json:"code"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &env), w.Body.String())
	return w.Code, env.Code
}

// echo answers 200 with the caller's account and the request's name.
func echo(w http.ResponseWriter, _ *http.Request, c authjwt.Caller, req nameRequest) error {
	httpx.Respond(w, http.StatusOK, map[string]string{"code": c.AccountID + "/" + req.Name})
	return nil
}

func TestHandlerRefusesARequestWithoutACaller(t *testing.T) {
	t.Parallel()
	status, code := serveAs(t, authjwt.Handler(func(http.ResponseWriter, *http.Request, authjwt.Caller) error {
		t.Error("handler called without a caller")
		return nil
	}), nil, `{}`)
	require.Equal(t, http.StatusUnauthorized, status)
	require.Equal(t, apperr.CodeUnauthenticated, code)
}

func TestHandlerAnswersItsError(t *testing.T) {
	t.Parallel()
	status, code := serveAs(t, authjwt.Handler(func(_ http.ResponseWriter, _ *http.Request, c authjwt.Caller) error {
		return apperr.NotFound("gone", c.AccountID+" has none")
	}), &alice, `{}`)
	require.Equal(t, http.StatusNotFound, status)
	require.Equal(t, "gone", code)
}

func TestJSONChecksTheCallerBeforeTheBody(t *testing.T) {
	t.Parallel()
	h := authjwt.JSON(64, echo)
	status, code := serveAs(t, h, nil, `{"nmae":"x"}`)
	require.Equal(t, http.StatusUnauthorized, status, "no caller is 401 whatever the body")
	require.Equal(t, apperr.CodeUnauthenticated, code)
	status, code = serveAs(t, h, &alice, `{"nmae":"x"}`)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, apperr.CodeUnknownField, code)
	status, code = serveAs(t, h, &alice, `{"name":"`+strings.Repeat("x", 64)+`"}`)
	require.Equal(t, http.StatusRequestEntityTooLarge, status)
	require.Equal(t, apperr.CodeBodyTooLarge, code)
	status, code = serveAs(t, h, &alice, `{"name":"x"}`)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, alice.AccountID+"/x", code)
}

func TestSignedInRefusesAnAPIKey(t *testing.T) {
	t.Parallel()
	h := authjwt.SignedIn(authjwt.JSON(64, echo))
	withKey := alice
	withKey.KeyID = "key-1"
	status, code := serveAs(t, h, &withKey, `{"name":"x"}`)
	require.Equal(t, http.StatusForbidden, status)
	require.Equal(t, authjwt.ErrAPIKeyNotAllowed.Code, code)
	status, code = serveAs(t, h, &alice, `{"name":"x"}`)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, alice.AccountID+"/x", code)
}
