package ratelimit

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	decisions     *prometheus.CounterVec
	fallback      prometheus.Gauge
	backendErrors prometheus.Counter
}

// newMetrics registers the limiter's metrics with reg. Limiters sharing a registry share the
// collectors; the fallback gauge is moved with Inc/Dec so it stays right for each of them.
func newMetrics(reg prometheus.Registerer) *metrics {
	return &metrics{
		decisions: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bizassist_ratelimit_decisions_total",
			Help: "Rate-limit decisions by policy and outcome (allowed or limited).",
		}, []string{"policy", "decision"})),
		fallback: register(reg, prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "bizassist_ratelimit_fallback_active",
			Help: "1 while the limiter decides in process memory because Redis is unreachable.",
		})),
		backendErrors: register(reg, prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bizassist_ratelimit_backend_errors_total",
			Help: "Redis calls of the rate limiter that failed or timed out.",
		})),
	}
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var dup prometheus.AlreadyRegisteredError
		if errors.As(err, &dup) {
			if existing, ok := dup.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err)
	}
	return c
}

func (m *metrics) decided(p Policy, allowed bool) {
	decision := "limited"
	if allowed {
		decision = "allowed"
	}
	m.decisions.WithLabelValues(p.Name, decision).Inc()
}
