package apiclient_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/bizassist/bizassist/libs/apiclient"
	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

// seen is what the fake service was sent.
type seen struct {
	method, path, query, auth, forwarded, accept, contentType, traceparent, idempotency string
	body                                                                                map[string]any
}

func serve(t *testing.T, answer http.HandlerFunc) (*apiclient.Client, <-chan seen) {
	t.Helper()
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := seen{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, auth: r.Header.Get("Authorization"),
			forwarded: r.Header.Get("X-Forwarded-For"), accept: r.Header.Get("Accept"),
			contentType: r.Header.Get("Content-Type"), traceparent: r.Header.Get("Traceparent"),
			idempotency: r.Header.Get("Idempotency-Key")}
		_ = json.NewDecoder(r.Body).Decode(&s.body)
		got <- s
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	c := apiclient.New("leads", srv.URL+"/", 5*time.Second)
	t.Cleanup(c.Close)
	return c, got
}

func TestDoSendsJSONWithTheCallersTokenAndDecodesTheAnswer(t *testing.T) {
	t.Parallel()
	c, got := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		httpx.Respond(w, http.StatusOK, map[string]any{"found": 2})
	})
	var out struct {
		OK    bool `json:"ok"`
		Found int  `json:"found"`
	}
	err := c.Do(context.Background(), apiclient.Request{Method: http.MethodPost, Path: "/internal/lead-finder",
		Query: url.Values{"limit": {"5"}}, Token: "tok", Body: map[string]string{"industry": "plumbing"},
		Header: http.Header{"Idempotency-Key": {"k1"}}}, &out)
	require.NoError(t, err)
	require.Equal(t, 2, out.Found)
	s := <-got
	s.traceparent = "" // TestACallIsAClientSpanThatCarriesTheTrace's
	require.Equal(t, seen{method: "POST", path: "/internal/lead-finder", query: "limit=5", auth: "Bearer tok",
		accept: "application/json", contentType: "application/json", idempotency: "k1",
		body: map[string]any{"industry": "plumbing"}}, s)
}

func TestAGetSendsNoBodyNoTokenWhenNoneIsGiven(t *testing.T) {
	t.Parallel()
	c, got := serve(t, func(w http.ResponseWriter, _ *http.Request) { httpx.Respond(w, http.StatusOK, struct{}{}) })
	require.NoError(t, c.Do(context.Background(), apiclient.Request{Method: http.MethodGet, Path: "/api/agent-brain-public-feed"}, nil))
	s := <-got
	require.Empty(t, s.auth)
	require.Empty(t, s.contentType)
	require.Nil(t, s.body)
}

func TestTheEnvelopeBecomesAnErrorOfItsKind(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		httpx.Fail(w, r, apperr.QuotaExceeded("lead_finder_limit_reached", "no searches left").
			With("upgradeUrl", "https://bizassist.test/pricing").With("remaining", 0))
	})
	err := c.Do(context.Background(), apiclient.Request{Method: http.MethodPost, Path: "/api/lead-finder"}, nil)
	var refused *apiclient.Error
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusPaymentRequired, refused.Status)
	require.Equal(t, apperr.KindQuotaExceeded, refused.Kind())
	require.Equal(t, "lead_finder_limit_reached", refused.Code)
	require.Equal(t, "no searches left", refused.Message)
	require.Equal(t, "https://bizassist.test/pricing", refused.UpgradeURL)
	var extra struct {
		Remaining *int `json:"remaining"`
	}
	require.NoError(t, refused.Decode(&extra))
	require.Equal(t, 0, *extra.Remaining)
}

func TestAFieldAndARetryAfterHeaderAreKept(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		httpx.Fail(w, r, apperr.New(apperr.KindRateLimited, apperr.CodeRateLimited, "slow down"))
	})
	err := c.Do(context.Background(), apiclient.Request{Method: http.MethodGet, Path: "/api/leads"}, nil)
	var refused *apiclient.Error
	require.ErrorAs(t, err, &refused)
	require.Equal(t, 7, refused.RetryAfter)
	require.Equal(t, apperr.KindRateLimited, refused.Kind())

	c, _ = serve(t, func(w http.ResponseWriter, r *http.Request) {
		httpx.Fail(w, r, apperr.InvalidField("location", "is not a place we know"))
	})
	err = c.Do(context.Background(), apiclient.Request{Method: http.MethodPost, Path: "/api/lead-finder"}, nil)
	require.ErrorAs(t, err, &refused)
	require.Equal(t, "location", refused.Field)
}

func TestAnAnswerThatIsNotAnEnvelopeStillHasItsStatus(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html>bad gateway</html>")
	})
	err := c.Do(context.Background(), apiclient.Request{Method: http.MethodGet, Path: "/api/leads"}, nil)
	var refused *apiclient.Error
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusBadGateway, refused.Status)
	require.Equal(t, "Bad Gateway", refused.Message)
	require.Empty(t, refused.Code)
	require.Equal(t, apperr.KindInternal, refused.Kind())
}

// A redirect would carry the caller's token to wherever it points.
func TestARedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	c, got := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://attacker.example/steal", http.StatusFound)
	})
	err := c.Do(context.Background(), apiclient.Request{Method: http.MethodGet, Path: "/api/leads", Token: "tok"}, nil)
	var refused *apiclient.Error
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusFound, refused.Status)
	require.Len(t, got, 1)
}

func TestTheForwardedAddressIsTheContexts(t *testing.T) {
	t.Parallel()
	c, got := serve(t, func(w http.ResponseWriter, _ *http.Request) { httpx.Respond(w, http.StatusOK, struct{}{}) })
	ctx := apiclient.WithForwardedFor(context.Background(), netip.MustParseAddr("203.0.113.9"))
	require.NoError(t, c.Do(ctx, apiclient.Request{Method: http.MethodGet, Path: "/api/leads"}, nil))
	require.Equal(t, "203.0.113.9", (<-got).forwarded)
}

func TestACallThatCannotBeMadeNamesTheServiceOrIsTheCallersCancellation(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	c := apiclient.New("analytics", "http://"+addr, time.Second)
	err = c.Do(context.Background(), apiclient.Request{Method: http.MethodGet, Path: "/internal/health-score"}, nil)
	require.ErrorContains(t, err, "analytics GET /internal/health-score")
	var refused *apiclient.Error
	require.NotErrorAs(t, err, &refused)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = c.Do(ctx, apiclient.Request{Method: http.MethodGet, Path: "/internal/health-score"}, nil)
	require.ErrorIs(t, err, context.Canceled)
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	require.NoError(t, apiclient.CheckURL("LEADS_URL", "http://leads:8080"))
	for _, bad := range []string{"", "leads:8080", "ftp://leads", "http://"} {
		require.Error(t, apiclient.CheckURL("LEADS_URL", bad), bad)
	}
}

// Each call is a client span, child of the caller's span, and the callee is sent the trace: its
// server span continues it.
func TestACallIsAClientSpanThatCarriesTheTrace(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	c, got := serve(t, func(w http.ResponseWriter, _ *http.Request) { httpx.Respond(w, http.StatusOK, struct{}{}) })
	ctx, parent := tp.Tracer("test").Start(context.Background(), "POST /api/chat")
	require.NoError(t, c.Do(ctx, apiclient.Request{Method: http.MethodPost, Path: "/internal/lead-finder", Body: struct{}{}}, nil))
	parent.End()

	var client sdktrace.ReadOnlySpan
	for _, s := range spans.GetSpans().Snapshots() {
		if s.SpanKind() == trace.SpanKindClient {
			client = s
		}
	}
	require.NotNil(t, client)
	require.Equal(t, "POST leads /internal/lead-finder", client.Name())
	require.Equal(t, parent.SpanContext().SpanID(), client.Parent().SpanID())
	sent := propagation.TraceContext{}.Extract(context.Background(), propagation.HeaderCarrier{"Traceparent": {(<-got).traceparent}})
	require.Equal(t, parent.SpanContext().TraceID(), trace.SpanContextFromContext(sent).TraceID())
	require.Equal(t, client.SpanContext().SpanID(), trace.SpanContextFromContext(sent).SpanID())
}
