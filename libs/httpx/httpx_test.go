package httpx_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

type loginBody struct {
	Email string `json:"email"`
	Limit *int   `json:"limit"`
}

func decodeBody(t *testing.T, body string, max int64) (loginBody, error) {
	t.Helper()
	var dst loginBody
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	err := httpx.Decode(httptest.NewRecorder(), req, &dst, max)
	return dst, err
}

func TestDecodeAcceptsAWellFormedObject(t *testing.T) {
	t.Parallel()
	got, err := decodeBody(t, `{"email":"a@b.co","limit":5}`, 1024)
	require.NoError(t, err)
	require.Equal(t, "a@b.co", got.Email)
	require.Equal(t, 5, *got.Limit)
}

func TestDecodeRejectsBadBodies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		max        int64
		code       string
		field      string
		kind       apperr.Kind
	}{
		{"empty", ``, 1024, apperr.CodeMalformedJSON, "", apperr.KindInvalid},
		{"syntax", `{"email":`, 1024, apperr.CodeMalformedJSON, "", apperr.KindInvalid},
		{"garbage", `{nope}`, 1024, apperr.CodeMalformedJSON, "", apperr.KindInvalid},
		{"not an object", `[1,2]`, 1024, apperr.CodeMalformedJSON, "", apperr.KindInvalid},
		{"wrong type", `{"limit":"ten"}`, 1024, apperr.CodeInvalidType, "limit", apperr.KindInvalid},
		{"unknown field", `{"emial":"x"}`, 1024, apperr.CodeUnknownField, "emial", apperr.KindInvalid},
		{"trailing data", `{"email":"x"} {"email":"y"}`, 1024, apperr.CodeMalformedJSON, "", apperr.KindInvalid},
		{"too large", `{"email":"` + strings.Repeat("x", 2000) + `"}`, 100, apperr.CodeBodyTooLarge, "", apperr.KindTooLarge},
		// Names are exact: v1 encoding/json read "Limit" as limit.
		{"name in another case", `{"Limit":5}`, 1024, apperr.CodeUnknownField, "Limit", apperr.KindInvalid},
		// A name given twice: v1 took the last value.
		{"duplicate name", `{"limit":1,"limit":50}`, 1024, apperr.CodeDuplicateField, "limit", apperr.KindInvalid},
		{"fraction for an integer", `{"limit":2.5}`, 1024, apperr.CodeInvalidType, "limit", apperr.KindInvalid},
		// Bytes PostgreSQL's text cannot hold (SQLSTATE 22021) are refused naming the field.
		{"invalid UTF-8", "{\"email\":\"\xff\"}", 1024, apperr.CodeMalformedJSON, "email", apperr.KindInvalid},
		{"unpaired surrogate", `{"email":"\ud800"}`, 1024, apperr.CodeMalformedJSON, "email", apperr.KindInvalid},
		{"NUL in a value", `{"email":"nul\u0000byte"}`, 1024, apperr.CodeInvalidField, "email", apperr.KindInvalid},
		{"NUL in a name", `{"em\u0000":"x"}`, 1024, apperr.CodeInvalidField, "em\u0000", apperr.KindInvalid},
		// null is not absent: the documents declare these members, none of them nullable.
		{"null for an optional integer", `{"limit":null}`, 1024, apperr.CodeInvalidType, "limit", apperr.KindInvalid},
		{"null for a string", `{"email":null}`, 1024, apperr.CodeInvalidType, "email", apperr.KindInvalid},
		{"null for the body", `null`, 1024, apperr.CodeMalformedJSON, "", apperr.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := decodeBody(t, tc.body, tc.max)
			var appErr *apperr.Error
			require.ErrorAs(t, err, &appErr)
			require.Equal(t, tc.code, appErr.Code)
			require.Equal(t, tc.field, appErr.Field)
			require.Equal(t, tc.kind, appErr.Kind)
		})
	}
}

func TestDecodeNamesNestedFieldsByPath(t *testing.T) {
	t.Parallel()
	var dst struct {
		Leads []struct {
			Email string `json:"email"`
		} `json:"leads"`
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"leads":[{"email":"a@b.co"},{"email":7}]}`))
	req.Header.Set("Content-Type", "application/json")
	err := httpx.Decode(httptest.NewRecorder(), req, &dst, 1024)
	var appErr *apperr.Error
	require.ErrorAs(t, err, &appErr)
	require.Equal(t, apperr.CodeInvalidType, appErr.Code)
	require.Equal(t, "leads[1].email", appErr.Field)
	require.Equal(t, "leads[1].email: must be a string, not number", appErr.Message)
}

// A JSON body must say it is JSON: v1-era handlers read form posts and text/plain as JSON.
func TestDecodeRequiresAJSONContentType(t *testing.T) {
	t.Parallel()
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"} {
		t.Run(ct, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"email":"a@b.co"}`))
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			rec := httptest.NewRecorder()
			var dst loginBody
			httpx.Fail(rec, req, httpx.Decode(rec, req, &dst, 1024))
			require.Equal(t, http.StatusUnsupportedMediaType, rec.Code)
			require.JSONEq(t, `{"ok":false,"code":"unsupported_media_type","field":"Content-Type","error":"Content-Type must be application/json, not `+cmp.Or(ct, "none")+`"}`, rec.Body.String())
		})
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"email":"a@b.co"}`))
		req.Header.Set("Content-Type", ct)
		var dst loginBody
		require.NoError(t, httpx.Decode(httptest.NewRecorder(), req, &dst, 1024), ct)
	}
}

// A client that pinned the version before strict bodies keeps the rules it was written against.
func TestDecodeKeepsThePinnedLenientVersionsRules(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"Email":"a@b.co","limit":1,"limit":5}`))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set(httpx.APIVersionHeader, httpx.LenientJSONVersion)
	var dst loginBody
	require.NoError(t, httpx.Decode(httptest.NewRecorder(), req, &dst, 1024))
	require.Equal(t, "a@b.co", dst.Email)
	require.Equal(t, 5, *dst.Limit)

	req = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"emial":"a@b.co"}`))
	req.Header.Set(httpx.APIVersionHeader, httpx.LenientJSONVersion)
	var appErr *apperr.Error
	require.ErrorAs(t, httpx.Decode(httptest.NewRecorder(), req, &dst, 1024), &appErr)
	require.Equal(t, apperr.CodeUnknownField, appErr.Code, "unknown names were refused then too")
}

func TestRespondPutsOkFirst(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	httpx.Respond(rec, http.StatusOK, struct {
		Token string `json:"token"`
	}{"abc"})
	require.Equal(t, `{"ok":true,"token":"abc"}`+"\n", rec.Body.String())
	require.Equal(t, "application/json; charset=utf-8", rec.Header().Get("Content-Type"))

	rec = httptest.NewRecorder()
	httpx.Respond(rec, http.StatusCreated, struct{}{})
	require.Equal(t, `{"ok":true}`+"\n", rec.Body.String())
	require.Equal(t, http.StatusCreated, rec.Code)
}

func TestFailMapsErrorsToStatusAndEnvelope(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err    error
		status int
		code   string
	}{
		{apperr.InvalidField("limit", "must be at most 50"), 400, apperr.CodeInvalidField},
		{fmt.Errorf("wrapped: %w", apperr.Unauthenticated(apperr.CodeInvalidToken, "token expired")), 401, apperr.CodeInvalidToken},
		{apperr.Forbidden("plan_upgrade_required", "growth plan required"), 403, "plan_upgrade_required"},
		{apperr.QuotaExceeded("quota_exhausted", "allowance spent"), 402, "quota_exhausted"},
		{apperr.New(apperr.KindRateLimited, apperr.CodeRateLimited, "slow down"), 429, apperr.CodeRateLimited},
		{context.Canceled, httpx.StatusClientClosedRequest, "canceled"},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), 504, "timeout"},
		{&http.MaxBytesError{Limit: 10}, 413, apperr.CodeBodyTooLarge},
		{errors.New("secret database detail"), 500, apperr.CodeInternal},
	}
	for _, tc := range cases {
		rec := httptest.NewRecorder()
		httpx.Fail(rec, httptest.NewRequest(http.MethodGet, "/x", nil), tc.err)
		require.Equal(t, tc.status, rec.Code, tc.err.Error())
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		require.Equal(t, false, body["ok"])
		require.Equal(t, tc.code, body["code"])
		require.NotEmpty(t, body["error"])
		require.NotContains(t, rec.Body.String(), "secret database detail")
	}
}

func TestFailCarriesFieldAndDetails(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	err := apperr.QuotaExceeded("quota_exhausted", "spent").With("upgradeUrl", "https://x.test/pricing")
	httpx.Fail(rec, httptest.NewRequest(http.MethodGet, "/", nil), err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	require.Equal(t, "https://x.test/pricing", body["upgradeUrl"])

	rec = httptest.NewRecorder()
	httpx.Fail(rec, httptest.NewRequest(http.MethodGet, "/", nil), apperr.MissingField("email"))
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	require.Equal(t, "email", body["field"])
	require.Equal(t, "email is required", body["error"])
}

func TestRecoverTurnsPanicsIntoEnvelopes(t *testing.T) {
	t.Parallel()
	h := httpx.Recover(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Equal(t, 500, rec.Code)
	require.Contains(t, rec.Body.String(), `"ok":false`)
}

func TestServerReadinessTurns503WhileDraining(t *testing.T) {
	t.Parallel()
	cfg := httpx.ServerConfig{Addr: "127.0.0.1:0", ReadHeaderTimeout: time.Second, ReadTimeout: time.Second,
		WriteTimeout: time.Second, IdleTimeout: time.Second, DrainDelay: 300 * time.Millisecond, ShutdownTimeout: time.Second}
	require.NoError(t, cfg.Validate())
	srv := httpx.NewServer(cfg, httpx.NotFoundHandler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	require.Eventually(t, func() bool { return statusOf(base+"/readyz") == 200 }, 2*time.Second, 10*time.Millisecond)
	require.Equal(t, 200, statusOf(base+"/livez"))
	require.Equal(t, 404, statusOf(base+"/api/nope"))
	require.Equal(t, 200, statusOf(base+"/metrics"))

	cancel()
	require.Eventually(t, func() bool { return statusOf(base+"/readyz") == 503 }, time.Second, 10*time.Millisecond)
	require.NoError(t, <-done)
}

func TestServerConfigValidation(t *testing.T) {
	t.Parallel()
	require.Error(t, httpx.ServerConfig{}.Validate())
}

func statusOf(url string) int {
	resp, err := http.Get(url) //nolint:gosec,noctx // test-local URL
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	return resp.StatusCode
}

func TestTimestampsAreUTCWithMilliseconds(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 15, 4, 5, 123456789, time.FixedZone("CST", -6*3600))
	require.Equal(t, "2026-11-21T21:04:05.123Z", httpx.Timestamp(at))
	b, err := json.Marshal(struct {
		At   httpx.Time `json:"at"`
		Zero httpx.Time `json:"zero"`
	}{httpx.Time(at), httpx.Time{}})
	require.NoError(t, err)
	require.JSONEq(t, `{"at":"2026-11-21T21:04:05.123Z","zero":null}`, string(b))
}

func TestRateLimitedErrorsCarryRetryAfter(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	err := apperr.New(apperr.KindRateLimited, apperr.CodeRateLimited, "slow down").With("retryAfter", 7)
	httpx.Fail(rec, httptest.NewRequest(http.MethodGet, "/", nil), err)
	require.Equal(t, 429, rec.Code)
	require.Equal(t, "7", rec.Header().Get("Retry-After"))
}

func TestUnavailableErrorsThatKnowWhenCarryRetryAfter(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	httpx.Fail(rec, httptest.NewRequest(http.MethodPost, "/", nil), apperr.Unavailable("busy", "try again").With("retryAfter", 1))
	require.Equal(t, 503, rec.Code)
	require.Equal(t, "1", rec.Header().Get("Retry-After"))

	rec = httptest.NewRecorder()
	httpx.Fail(rec, httptest.NewRequest(http.MethodPost, "/", nil), apperr.Unavailable("down", "try later"))
	require.Empty(t, rec.Header().Get("Retry-After"), "no retryAfter detail, no header")
}

func TestNotModifiedAnswers304OnlyWhenIfNoneMatchNamesTheTag(t *testing.T) {
	t.Parallel()
	etag := httpx.ETag([]byte(`{"a":1}`))
	require.Regexp(t, `^"[0-9a-f]{32}"$`, etag)
	require.NotEqual(t, etag, httpx.ETag([]byte(`{"a":2}`)))
	for header, want := range map[string]bool{
		"":                        false,
		etag:                      true,
		"W/" + etag:               true,
		`"other", ` + etag:        true,
		`"other",W/` + etag + ` `: true,
		"*":                       true,
		`"other"`:                 false,
		strings.Trim(etag, `"`):   false,
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		if header != "" {
			req.Header.Set("If-None-Match", header)
		}
		require.Equal(t, want, httpx.NotModified(rec, req, etag), "If-None-Match: %s", header)
		require.Equal(t, etag, rec.Header().Get("ETag"))
		if want {
			require.Equal(t, http.StatusNotModified, rec.Code)
			require.Empty(t, rec.Body.String())
		}
	}
}

func TestDebugServerIsLoopbackOnly(t *testing.T) {
	t.Parallel()
	ok := httpx.ServerConfig{Addr: ":8080", ReadHeaderTimeout: time.Second, ReadTimeout: time.Second,
		WriteTimeout: time.Second, IdleTimeout: time.Second, ShutdownTimeout: time.Second}
	for _, addr := range []string{"", "127.0.0.1:6060", "localhost:6060", "[::1]:6060"} {
		ok.DebugAddr = addr
		require.NoError(t, ok.Validate(), addr)
	}
	for _, addr := range []string{":6060", "0.0.0.0:6060", "10.0.0.5:6060", "127.0.0.1"} {
		ok.DebugAddr = addr
		require.Error(t, ok.Validate(), addr)
	}
	require.Error(t, httpx.ServeDebug(context.Background(), "0.0.0.0:0"))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpx.ServeDebug(ctx, addr) }()
	require.Eventually(t, func() bool { return statusOf("http://"+addr+"/debug/pprof/goroutine?debug=1") == 200 }, 2*time.Second, 10*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
}

func TestPublicCORSOpensAReadOnlyRouteToAnyOriginWithoutCredentials(t *testing.T) {
	t.Parallel()
	reached := 0
	h := httpx.PublicCORS(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached++
		httpx.Respond(w, http.StatusOK, map[string]any{})
	}))
	pre := httptest.NewRequest(http.MethodOptions, "/api/scout-stats", nil)
	pre.Header.Set("Origin", "https://dashboard.example")
	pre.Header.Set("Access-Control-Request-Method", "GET")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, pre)
	require.Equal(t, http.StatusNoContent, rec.Code)
	require.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
	require.Equal(t, "GET, HEAD", rec.Header().Get("Access-Control-Allow-Methods"))
	require.Empty(t, rec.Header().Get("Access-Control-Allow-Credentials"))
	require.Zero(t, reached, "the preflight is answered before the route (and its rate limit)")

	get := httptest.NewRequest(http.MethodGet, "/api/scout-stats", nil)
	get.Header.Set("Origin", "https://dashboard.example")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, get)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
	require.Contains(t, rec.Header().Get("Access-Control-Expose-Headers"), "ETag")
}
