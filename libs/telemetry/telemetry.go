// Package telemetry gives every service the same observability at the edge: JSON logs that
// carry the trace and span ids of the request, W3C trace context propagation, an OpenTelemetry
// tracer provider (exporting over OTLP/HTTP when an endpoint is configured), and an HTTP
// middleware that traces, measures and logs each request by its route template.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
)

// Config says where traces go, how many are kept, and how much is logged.
type Config struct {
	// OTLPEndpoint is the OTLP/HTTP base URL (e.g. http://otel-collector:4318); traces are
	// created but not exported when it is empty.
	OTLPEndpoint string  `env:"OTEL_EXPORTER_OTLP_ENDPOINT"`
	SampleRatio  float64 `env:"OTEL_TRACES_SAMPLER_ARG" envDefault:"1"`
	LogLevel     string  `env:"LOG_LEVEL" envDefault:"info"`
}

// Validate reports a config that cannot work.
func (c Config) Validate() error {
	if c.SampleRatio < 0 || c.SampleRatio > 1 {
		return fmt.Errorf("OTEL_TRACES_SAMPLER_ARG must be within [0, 1], got %g", c.SampleRatio)
	}
	if _, err := c.level(); err != nil {
		return err
	}
	if c.OTLPEndpoint != "" {
		if _, err := tracesURL(c.OTLPEndpoint); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return 0, fmt.Errorf("LOG_LEVEL %q must be debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

// tracesURL turns the OTLP base URL into the traces URL, as the OTLP exporter spec prescribes
// for OTEL_EXPORTER_OTLP_ENDPOINT.
func tracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT %q must be an absolute http(s) URL", endpoint)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	return u.String(), nil
}

// Setup makes the JSON log handler (to stderr) the slog default, installs the W3C trace context
// and baggage propagators and a tracer provider for service, and returns the function that
// flushes pending spans; call it last on shutdown.
func Setup(ctx context.Context, service string, cfg Config) (shutdown func(context.Context) error, err error) {
	return setup(ctx, service, cfg, os.Stderr)
}

func setup(ctx context.Context, service string, cfg Config, logOut io.Writer) (func(context.Context) error, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	level, _ := cfg.level()
	slog.SetDefault(slog.New(NewTraceHandler(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: level}))).
		With("service", service))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		slog.Warn("opentelemetry error", "error", err)
	}))
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))

	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName(service)))
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.SampleRatio))),
	}
	if cfg.OTLPEndpoint != "" {
		endpoint, _ := tracesURL(cfg.OTLPEndpoint)
		// New does not connect; an unreachable collector shows up as export errors, not here.
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
		if err != nil {
			return nil, fmt.Errorf("otlp trace exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	otel.SetTracerProvider(tp)
	return func(ctx context.Context) error {
		if err := tp.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("flush traces: %w", err)
		}
		return nil
	}, nil
}
