package postgres

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Metric names are shared with the dashboards; keep them stable.
var (
	batchSize = promauto.NewHistogram(prometheus.HistogramOpts{
		Name:    "bizassist_analytics_usage_batch_events",
		Help:    "Usage events committed per group-commit transaction.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 10),
	})
	batchSeconds = promauto.NewHistogram(prometheus.HistogramOpts{
		Name:    "bizassist_analytics_usage_batch_seconds",
		Help:    "Duration of one group-commit transaction, commit included.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 12),
	})
	batchErrors = promauto.NewCounter(prometheus.CounterOpts{
		Name: "bizassist_analytics_usage_batch_errors_total",
		Help: "Group-commit transactions that failed; their requests got errors.",
	})
	recomputed = promauto.NewCounter(prometheus.CounterOpts{
		Name: "bizassist_analytics_health_recomputed_total",
		Help: "Account health scores computed.",
	})
	criticalAlerts = promauto.NewCounter(prometheus.CounterOpts{
		Name: "bizassist_analytics_health_critical_total",
		Help: "health.critical events enqueued (clients dropping into the critical tier).",
	})
)
