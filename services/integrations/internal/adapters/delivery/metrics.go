package delivery

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Metric names are shared with the dashboards and alerts; keep them stable.
var (
	attempts = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "bizassist_webhook_attempts_total",
		Help: "Outbound webhook attempts by response class (2xx, 3xx, 4xx, 5xx, or error when no response came back).",
	}, []string{"class"})
	attemptSeconds = promauto.NewHistogram(prometheus.HistogramOpts{
		Name:    "bizassist_webhook_attempt_duration_seconds",
		Help:    "Time from dialling a subscriber to its response.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15},
	})
)

func statusClass(status int) string {
	if status == 0 {
		return "error"
	}
	return strconv.Itoa(status/100) + "xx"
}
