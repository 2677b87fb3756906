package httpx_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

// serve runs h on a POST of body (as JSON when body is not empty) and returns the answer.
func serve(h http.Handler, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func envelopeOf(t *testing.T, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var got map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &got), w.Body.String())
	return got
}

func TestHandlerAnswersItsErrorWithTheEnvelopeAndKeepsItsHeaders(t *testing.T) {
	t.Parallel()
	w := serve(httpx.Handler(func(w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set("Cache-Control", "no-store")
		return apperr.NotFound("no_such_thing", "no such thing")
	}), "")
	require.Equal(t, http.StatusNotFound, w.Code)
	require.Equal(t, "no-store", w.Header().Get("Cache-Control"))
	require.Equal(t, map[string]any{"ok": false, "code": "no_such_thing", "error": "no such thing"}, envelopeOf(t, w))
}

func TestHandlerLeavesASuccessfulAnswerAlone(t *testing.T) {
	t.Parallel()
	w := serve(httpx.Handler(func(w http.ResponseWriter, _ *http.Request) error {
		httpx.Respond(w, http.StatusCreated, map[string]int{"n": 1})
		return nil
	}), "")
	require.Equal(t, http.StatusCreated, w.Code)
	require.JSONEq(t, `{"ok":true,"n":1}`, w.Body.String())
}

func TestJSONHandsTheDecodedBodyOn(t *testing.T) {
	t.Parallel()
	var got loginBody
	w := serve(httpx.JSON(1024, func(w http.ResponseWriter, _ *http.Request, req loginBody) error {
		got = req
		httpx.Respond(w, http.StatusOK, struct{}{})
		return nil
	}), `{"email":"a@b.co"}`)
	require.Equal(t, http.StatusOK, w.Code)
	require.Equal(t, "a@b.co", got.Email)
}

func TestJSONAnswersDecodesRefusalsWithoutCallingTheHandler(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		status     int
		code       string
	}{
		{"no JSON content type", "", http.StatusUnsupportedMediaType, apperr.CodeUnsupportedMediaType},
		{"unknown field", `{"emial":"x"}`, http.StatusBadRequest, apperr.CodeUnknownField},
		{"over the limit", `{"email":"` + strings.Repeat("x", 64) + `"}`, http.StatusRequestEntityTooLarge, apperr.CodeBodyTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := serve(httpx.JSON(32, func(http.ResponseWriter, *http.Request, loginBody) error {
				t.Error("handler called on a refused body")
				return nil
			}), tc.body)
			require.Equal(t, tc.status, w.Code)
			require.Equal(t, tc.code, envelopeOf(t, w)["code"])
		})
	}
}

func TestRespondPublicTagsTheBodyAndAnswers304ToItsTag(t *testing.T) {
	t.Parallel()
	body := []byte(`{"a":1}`)
	get := func(ifNoneMatch string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if ifNoneMatch != "" {
			r.Header.Set("If-None-Match", ifNoneMatch)
		}
		w := httptest.NewRecorder()
		httpx.RespondPublic(w, r, time.Minute, body)
		return w
	}
	w := get("")
	require.Equal(t, http.StatusOK, w.Code)
	require.Equal(t, "public, max-age=60", w.Header().Get("Cache-Control"))
	require.Equal(t, httpx.ETag(body), w.Header().Get("ETag"))
	require.Equal(t, "application/json; charset=utf-8", w.Header().Get("Content-Type"))
	require.Equal(t, `{"a":1}`+"\n", w.Body.String())

	again := get(w.Header().Get("ETag"))
	require.Equal(t, http.StatusNotModified, again.Code)
	require.Equal(t, "public, max-age=60", again.Header().Get("Cache-Control"))
	require.Empty(t, again.Body.String())
}
