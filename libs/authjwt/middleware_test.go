package authjwt_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
)

func TestBearerToken(t *testing.T) {
	t.Parallel()
	cases := []struct {
		header, token, msg string
	}{
		{"Bearer abc.def.ghi", "abc.def.ghi", ""},
		{"bearer abc.def.ghi", "abc.def.ghi", ""},
		{"", "", "missing Authorization header"},
		{"Basic dXNlcjpwYXNz", "", "Authorization header must be 'Bearer <token>'"},
		{"Bearer", "", "Authorization header must be 'Bearer <token>'"},
		{"Bearer ", "", "Authorization header must be 'Bearer <token>'"},
		{"Bearer a b", "", "Authorization header must be 'Bearer <token>'"},
		{"abc.def.ghi", "", "Authorization header must be 'Bearer <token>'"},
	}
	for _, tc := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		token, err := authjwt.BearerToken(r)
		if tc.msg == "" {
			require.NoError(t, err, tc.header)
			require.Equal(t, tc.token, token)
			continue
		}
		var appErr *apperr.Error
		require.ErrorAs(t, err, &appErr, tc.header)
		require.Equal(t, apperr.KindUnauthenticated, appErr.Kind)
		require.Equal(t, apperr.CodeUnauthenticated, appErr.Code)
		require.Equal(t, tc.msg, appErr.Message)
	}
}

func TestMiddleware(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, err := authjwt.NewVerifier(iss.Config())
	require.NoError(t, err)
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := authjwt.CallerFrom(r.Context())
		require.True(t, ok)
		_, _ = w.Write([]byte(c.AccountID + " " + c.Plan))
	}))
	serve := func(authorization string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/api/leads", nil)
		if authorization != "" {
			r.Header.Set("Authorization", authorization)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	t.Run("valid token reaches the handler with its caller", func(t *testing.T) {
		w := serve("Bearer " + iss.Token(alice))
		require.Equal(t, http.StatusOK, w.Code)
		require.Equal(t, "acc_alice growth", w.Body.String())
	})

	rejections := []struct {
		name, authorization, challenge, code, msg string
	}{
		{"no header", "", "Bearer", "unauthenticated", "missing Authorization header"},
		{"wrong scheme", "Basic dXNlcjpwYXNz", "Bearer", "unauthenticated", "Authorization header must be 'Bearer <token>'"},
		{"expired token", "Bearer " + iss.Token(alice, jwttest.ExpiresAt(time.Now().Add(-time.Hour))),
			`Bearer error="invalid_token"`, "invalid_token", "token has expired"},
		{"garbage token", "Bearer garbage", `Bearer error="invalid_token"`, "invalid_token", "token is malformed"},
	}
	for _, tc := range rejections {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(tc.authorization)
			require.Equal(t, http.StatusUnauthorized, w.Code)
			require.Equal(t, tc.challenge, w.Header().Get("WWW-Authenticate"))
			require.JSONEq(t, `{"ok":false,"code":"`+tc.code+`","error":"`+tc.msg+`"}`, w.Body.String())
		})
	}
}

func TestMiddlewareFailsClosedWhenKeysAreUnavailable(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, err := authjwt.NewVerifier(iss.Config())
	require.NoError(t, err)
	iss.Stop()
	h := v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		t.Error("handler must not run")
	}))
	r := httptest.NewRequest(http.MethodGet, "/api/leads", nil)
	r.Header.Set("Authorization", "Bearer "+iss.Token(alice))
	w := httptest.NewRecorder()

	h.ServeHTTP(w, r)

	require.Equal(t, http.StatusServiceUnavailable, w.Code)
	require.Empty(t, w.Header().Get("WWW-Authenticate"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
	require.Equal(t, false, body["ok"])
	require.Equal(t, authjwt.CodeAuthUnavailable, body["code"])
}

func TestCallerFromEmptyContext(t *testing.T) {
	t.Parallel()
	_, ok := authjwt.CallerFrom(httptest.NewRequest(http.MethodGet, "/", nil).Context())
	require.False(t, ok)
}

func TestRequireCaller(t *testing.T) {
	t.Parallel()
	_, err := authjwt.RequireCaller(context.Background())
	require.Equal(t, apperr.KindUnauthenticated, apperr.KindOf(err))
	c, err := authjwt.RequireCaller(authjwt.WithCaller(context.Background(), alice))
	require.NoError(t, err)
	require.Equal(t, alice, c)
}
