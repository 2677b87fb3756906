package service_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// A chat turn is one trace from the ingress on: the assistant's server span continues the
// ingress's traceparent, and its calls to analytics (the reservation) and leads (the search) are
// its children, carried to them in their own traceparent. Not parallel: the tracer provider is
// the process's, set by the service as it starts.
func TestAChatTurnIsOneTraceWithTheCallsToAnalyticsAndLeadsAsChildren(t *testing.T) {
	s := newStack(t, nil)
	tp, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider)
	require.True(t, ok, "the service installs the SDK's tracer provider")
	spans := tracetest.NewInMemoryExporter()
	tp.RegisterSpanProcessor(sdktrace.NewSimpleSpanProcessor(spans))

	const ingressTrace, ingressSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	r := s.do(t, http.MethodPost, "/api/chat", "10.0.3.9", map[string]string{
		"Authorization": "Bearer " + s.token("acc_alice", "growth"),
		"Traceparent":   "00-" + ingressTrace + "-" + ingressSpan + "-01",
	}, map[string]any{"message": "Find plumbers in Austin, TX"})
	require.Equal(t, http.StatusOK, r.status, r.raw)

	var server sdktrace.ReadOnlySpan
	children := map[string]trace.SpanID{}
	for _, sp := range spans.GetSpans().Snapshots() {
		require.Equal(t, ingressTrace, sp.SpanContext().TraceID().String(), "span %q is in another trace", sp.Name())
		switch sp.SpanKind() {
		case trace.SpanKindServer:
			server = sp
		case trace.SpanKindClient:
			children[sp.Name()] = sp.Parent().SpanID()
		}
	}
	require.NotNil(t, server)
	require.Equal(t, "POST /api/chat", server.Name())
	require.Equal(t, ingressSpan, server.Parent().SpanID().String())
	require.Equal(t, map[string]trace.SpanID{
		"POST analytics /internal/usage/reserve": server.SpanContext().SpanID(),
		"POST leads /internal/lead-finder":       server.SpanContext().SpanID(),
	}, children)
}
