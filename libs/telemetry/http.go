package telemetry

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/felixge/httpsnoop"
	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// RouteUnmatched is the route label of requests no route matched, so that scans of random
// paths cannot grow the metric label space.
const RouteUnmatched = "unmatched"

const tracerName = "github.com/bizassist/bizassist/libs/telemetry"

var (
	requestsTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "bizassist_http_requests_total",
		Help: "HTTP requests served, by route template and status.",
	}, []string{"service", "method", "route", "status"})
	requestDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "bizassist_http_request_duration_seconds",
		Help:    "Time from receiving an HTTP request to returning from its handler.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"service", "method", "route"})
	requestsInFlight = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bizassist_http_requests_in_flight",
		Help: "HTTP requests being served.",
	}, []string{"service"})
)

// Middleware traces, measures and logs each request. Wrap the whole router with it
// (telemetry.Middleware("leads")(router)) so unmatched paths are counted too; inside a
// router (router.Use) it sees matched routes only.
//
// The server span continues the caller's trace from the traceparent header and is named
// "<METHOD> <route template>".
func Middleware(service string) func(http.Handler) http.Handler {
	tracer := otel.Tracer(tracerName)
	inFlight := requestsInFlight.WithLabelValues(service)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			route := routeOf(next, r)
			method := methodLabel(r.Method)
			spanName := method
			if route != RouteUnmatched {
				spanName += " " + route
			}
			ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
			ctx, span := tracer.Start(ctx, spanName,
				trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(semconv.HTTPRequestMethodKey.String(method), semconv.URLPath(r.URL.Path)))
			defer span.End()
			if route != RouteUnmatched {
				span.SetAttributes(semconv.HTTPRoute(route))
			}

			inFlight.Inc()
			defer inFlight.Dec()
			ww, sent := capture(w)
			panicked := true
			// Deferred so a panicking handler is still counted, as the 500 a recoverer outside
			// will send; the panic itself goes on.
			defer func() {
				code := sent.code
				if panicked && !sent.wroteHeader {
					code = http.StatusInternalServerError
				}
				elapsed := time.Since(start)
				span.SetAttributes(semconv.HTTPResponseStatusCode(code))
				if code >= 500 {
					span.SetStatus(codes.Error, http.StatusText(code))
				}
				requestsTotal.WithLabelValues(service, method, route, strconv.Itoa(code)).Inc()
				ObserveWithTrace(ctx, requestDuration.WithLabelValues(service, method, route), elapsed.Seconds())
				slog.LogAttrs(ctx, slog.LevelInfo, "http request",
					slog.String("method", r.Method),
					slog.String("route", route),
					slog.String("path", r.URL.Path),
					slog.Int("status", code),
					slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
					slog.Int64("bytes", sent.bytes),
					slog.String("remote_addr", r.RemoteAddr))
			}()
			next.ServeHTTP(ww, r.WithContext(ctx))
			panicked = false
		})
	}
}

// ObserveWithTrace records v in a histogram (or summary) and, when ctx carries a sampled span,
// attaches the span's trace id as an exemplar ({trace_id="<32 hex>"}), so a dashboard can go
// from a latency outlier to its trace. Exemplars are exposed on /metrics in the OpenMetrics
// format only (libs/httpx serves it to scrapers that ask for it, as Prometheus does). An
// unsampled span has no trace in the backend to link to, so it records no exemplar.
func ObserveWithTrace(ctx context.Context, o prometheus.Observer, v float64) {
	sc := trace.SpanContextFromContext(ctx)
	if eo, ok := o.(prometheus.ExemplarObserver); ok && sc.IsSampled() && sc.HasTraceID() {
		eo.ObserveWithExemplar(v, prometheus.Labels{"trace_id": sc.TraceID().String()})
		return
	}
	o.Observe(v)
}

// sentResponse is what a handler has sent so far.
type sentResponse struct {
	code        int
	wroteHeader bool
	bytes       int64
}

// capture wraps w to record the status and body size while keeping the optional interfaces
// (Flusher, Hijacker, ReaderFrom) that w implements.
func capture(w http.ResponseWriter) (http.ResponseWriter, *sentResponse) {
	s := &sentResponse{code: http.StatusOK}
	return httpsnoop.Wrap(w, httpsnoop.Hooks{
		WriteHeader: func(next httpsnoop.WriteHeaderFunc) httpsnoop.WriteHeaderFunc {
			return func(code int) {
				if !s.wroteHeader {
					s.code, s.wroteHeader = code, true
				}
				next(code)
			}
		},
		Write: func(next httpsnoop.WriteFunc) httpsnoop.WriteFunc {
			return func(b []byte) (int, error) {
				s.wroteHeader = true
				n, err := next(b)
				s.bytes += int64(n)
				return n, err
			}
		},
		ReadFrom: func(next httpsnoop.ReadFromFunc) httpsnoop.ReadFromFunc {
			return func(src io.Reader) (int64, error) {
				s.wroteHeader = true
				n, err := next(src)
				s.bytes += n
				return n, err
			}
		},
	}), s
}

// routeOf returns the path template of the route r is for: the current route when running
// inside a mux router, or the route next would pick when next is the router itself.
func routeOf(next http.Handler, r *http.Request) string {
	route := mux.CurrentRoute(r)
	if route == nil {
		if router, ok := next.(*mux.Router); ok {
			var match mux.RouteMatch
			if router.Match(r, &match) && match.MatchErr == nil {
				route = match.Route
			}
		}
	}
	if route == nil {
		return RouteUnmatched
	}
	if tpl, err := route.GetPathTemplate(); err == nil {
		return tpl
	}
	return RouteUnmatched
}

// methodLabel keeps the method label bounded: arbitrary method tokens become OTHER.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	default:
		return "OTHER"
	}
}
