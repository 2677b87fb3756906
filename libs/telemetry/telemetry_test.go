package telemetry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/bizassist/bizassist/libs/httpx"
)

// These tests replace process-wide state (slog default, otel globals), so they do not run in
// parallel; each uses its own service label so metric assertions do not see each other.

const (
	incomingTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	incomingSpanID  = "00f067aa0ba902b7"
	traceparent     = "00-" + incomingTraceID + "-" + incomingSpanID + "-01"
)

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler)) // tests that read logs install their own
	os.Exit(m.Run())
}

// setupForTest runs Setup with logs going to the returned buffer.
func setupForTest(t *testing.T, cfg Config) *syncBuffer {
	t.Helper()
	prev := slog.Default()
	var buf syncBuffer
	shutdown, err := setup(context.Background(), "test-svc", cfg, &buf)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, shutdown(context.Background()))
		slog.SetDefault(prev)
	})
	return &buf
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines decodes the JSON log lines written so far.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var line map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), sc.Text())
		out = append(out, line)
	}
	return out
}

func newRouter() *mux.Router {
	r := mux.NewRouter()
	r.HandleFunc("/api/leads/{id}", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte("hello"))
	}).Methods(http.MethodPost)
	return r
}

func serve(h http.Handler, method, path string, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// routeSamples returns the request counter's values for service, keyed by "method route status".
func routeSamples(t *testing.T, service string) map[string]float64 {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "bizassist_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := labels(m)
			if l["service"] == service {
				out[l["method"]+" "+l["route"]+" "+l["status"]] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

func labels(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

func TestMetricsUseRouteTemplateAndStatus(t *testing.T) {
	h := Middleware("metrics-wrap")(newRouter())

	serve(h, http.MethodPost, "/api/leads/ld_1", nil)
	serve(h, http.MethodPost, "/api/leads/ld_2", nil)
	serve(h, http.MethodGet, "/api/leads/ld_1", nil) // wrong method: mux answers 405
	serve(h, http.MethodGet, "/wp-login.php", nil)
	serve(h, "BREW", "/api/leads/ld_1", nil)

	require.Equal(t, map[string]float64{
		"POST /api/leads/{id} 201": 2,
		"GET unmatched 405":        1,
		"GET unmatched 404":        1,
		"OTHER unmatched 405":      1,
	}, routeSamples(t, "metrics-wrap"))
	require.Equal(t, 3, testutil.CollectAndCount(requestDuration.MustCurryWith(prometheus.Labels{"service": "metrics-wrap"})))
	require.Zero(t, testutil.ToFloat64(requestsInFlight.WithLabelValues("metrics-wrap")))
}

func TestMetricsInsideRouter(t *testing.T) {
	r := newRouter()
	r.Use(Middleware("metrics-use"))

	serve(r, http.MethodPost, "/api/leads/ld_1", nil)

	require.Equal(t, map[string]float64{"POST /api/leads/{id} 201": 1}, routeSamples(t, "metrics-use"))
}

func TestPanickingHandlerCountsAsServerError(t *testing.T) {
	h := Middleware("panics")(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom")
	}))

	require.PanicsWithValue(t, "boom", func() { serve(h, http.MethodGet, "/", nil) })

	require.Equal(t, map[string]float64{"GET unmatched 500": 1}, routeSamples(t, "panics"))
	require.Zero(t, testutil.ToFloat64(requestsInFlight.WithLabelValues("panics")))
}

func TestInFlightGaugeCountsRunningRequests(t *testing.T) {
	var during float64
	h := Middleware("inflight")(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		during = testutil.ToFloat64(requestsInFlight.WithLabelValues("inflight"))
	}))

	serve(h, http.MethodGet, "/", nil)

	require.Equal(t, 1.0, during)
	require.Zero(t, testutil.ToFloat64(requestsInFlight.WithLabelValues("inflight")))
}

func TestIncomingTraceparentContinuesInHandlerAndLogs(t *testing.T) {
	logs := setupForTest(t, Config{SampleRatio: 1, LogLevel: "info"})
	var handlerSpan trace.SpanContext
	r := mux.NewRouter()
	r.HandleFunc("/api/lead-qualify", func(w http.ResponseWriter, r *http.Request) {
		handlerSpan = trace.SpanContextFromContext(r.Context())
		slog.InfoContext(r.Context(), "qualifying")
		w.WriteHeader(http.StatusAccepted)
	})
	h := Middleware("tracing")(r)

	serve(h, http.MethodPost, "/api/lead-qualify", http.Header{"Traceparent": {traceparent}})

	require.Equal(t, incomingTraceID, handlerSpan.TraceID().String())
	require.NotEqual(t, incomingSpanID, handlerSpan.SpanID().String(), "the server span is a child of the caller's")
	require.True(t, handlerSpan.IsSampled())
	lines := logs.lines(t)
	require.Len(t, lines, 2)
	for _, line := range lines {
		require.Equal(t, incomingTraceID, line["trace_id"])
		require.Equal(t, handlerSpan.SpanID().String(), line["span_id"])
		require.Equal(t, "test-svc", line["service"])
	}
	access := lines[1]
	require.Equal(t, "http request", access["msg"])
	require.Equal(t, "POST", access["method"])
	require.Equal(t, "/api/lead-qualify", access["route"])
	require.Equal(t, float64(http.StatusAccepted), access["status"])
	require.Contains(t, access, "duration_ms")
	require.Contains(t, access, "remote_addr")
}

func TestRequestsWithoutTraceparentStartATrace(t *testing.T) {
	logs := setupForTest(t, Config{SampleRatio: 1, LogLevel: "info"})
	h := Middleware("tracing-root")(http.NotFoundHandler())

	serve(h, http.MethodGet, "/x", nil)

	lines := logs.lines(t)
	require.Len(t, lines, 1)
	require.Len(t, lines[0]["trace_id"], 32)
	require.Equal(t, RouteUnmatched, lines[0]["route"])
}

func TestLogLevelFilters(t *testing.T) {
	logs := setupForTest(t, Config{SampleRatio: 1, LogLevel: "warn"})

	slog.Info("dropped")
	slog.Warn("kept")

	lines := logs.lines(t)
	require.Len(t, lines, 1)
	require.Equal(t, "kept", lines[0]["msg"])
}

func TestSetupExportsSpansOverOTLPAndFlushesOnShutdown(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	prev := slog.Default()
	defer slog.SetDefault(prev)

	shutdown, err := setup(context.Background(), "export-svc", Config{OTLPEndpoint: collector.URL, SampleRatio: 1, LogLevel: "info"}, &syncBuffer{})
	require.NoError(t, err)
	_, span := otel.Tracer("test").Start(context.Background(), "work")
	span.End()
	require.NoError(t, shutdown(context.Background()))

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"POST /v1/traces"}, paths)
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, Config{SampleRatio: 0.5, LogLevel: "debug", OTLPEndpoint: "http://collector:4318"}.Validate())
	for name, c := range map[string]Config{
		"ratio above 1":   {SampleRatio: 1.5, LogLevel: "info"},
		"negative ratio":  {SampleRatio: -0.1, LogLevel: "info"},
		"unknown level":   {SampleRatio: 1, LogLevel: "loud"},
		"endpoint scheme": {SampleRatio: 1, LogLevel: "info", OTLPEndpoint: "collector:4318"},
	} {
		require.Error(t, c.Validate(), name)
	}
}

func TestTracesURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://collector:4318":   "http://collector:4318/v1/traces",
		"https://collector:4318/": "https://collector:4318/v1/traces",
		"http://gateway/otlp":     "http://gateway/otlp/v1/traces",
	} {
		got, err := tracesURL(in)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
}

// TestLatencyExemplarsCarryTheTraceIDOnMetrics goes through the real /metrics of libs/httpx:
// a sampled request's latency observation carries its trace id as an exemplar in the
// OpenMetrics exposition (what Prometheus scrapes with exemplar storage on); an unsampled one
// carries none, since its trace was never recorded.
func TestLatencyExemplarsCarryTheTraceIDOnMetrics(t *testing.T) {
	setupForTest(t, Config{SampleRatio: 1, LogLevel: "error"})
	cfg := httpx.ServerConfig{Addr: "127.0.0.1:0", ReadHeaderTimeout: time.Second, ReadTimeout: time.Second,
		WriteTimeout: time.Second, IdleTimeout: time.Second, ShutdownTimeout: time.Second}
	require.NoError(t, cfg.Validate())
	srv := httpx.NewServer(cfg, Middleware("exemplars")(newRouter()))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })

	const unsampledTraceID = "0af7651916cd43dd8448eb211c80319c"
	get := func(path string, header http.Header) (*http.Response, string) {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.Header = header
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(body)
	}
	post := func(traceparent string) {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, base+"/api/leads/ld_1", nil)
		require.NoError(t, err)
		req.Header.Set("Traceparent", traceparent)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusCreated, resp.StatusCode)
	}
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/livez") //nolint:gosec,noctx // test-local URL
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 2*time.Second, 10*time.Millisecond)

	post(traceparent)                                             // sampled (flags 01)
	post("00-" + unsampledTraceID + "-" + incomingSpanID + "-00") // not sampled

	resp, body := get("/metrics", http.Header{"Accept": {"application/openmetrics-text; version=1.0.0"}})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "application/openmetrics-text")
	var exemplars []string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "bizassist_http_request_duration_seconds_bucket{") &&
			strings.Contains(line, `service="exemplars"`) && strings.Contains(line, " # {") {
			exemplars = append(exemplars, line)
		}
	}
	require.Len(t, exemplars, 1, "one exemplar, from the sampled request:\n%s", body)
	require.Contains(t, exemplars[0], `# {trace_id="`+incomingTraceID+`"}`)
	require.NotContains(t, body, unsampledTraceID)

	// The classic text format (what a scraper gets when it does not ask) has no exemplars.
	_, text := get("/metrics", http.Header{})
	require.NotContains(t, text, incomingTraceID)
}
