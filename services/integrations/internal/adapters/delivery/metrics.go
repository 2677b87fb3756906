package delivery

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
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
	outcomes = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "bizassist_webhook_deliveries_total",
		Help: "What each attempt meant for its delivery: done (delivered, gone or nothing to do), retry, snoozed (Retry-After) or given_up.",
	}, []string{"result"})
	deferrals = promauto.NewCounter(prometheus.CounterOpts{
		Name: "bizassist_webhook_deferrals_total",
		Help: "Deliveries put off (not attempted) because their account already had its share of workers in flight.",
	})
	handoffs = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "bizassist_webhook_handoffs_total",
		Help: "Deliveries planned for an attempt in process that went to a queued job instead, by reason: backlog (the dispatcher was full), account_share (their account had its share in flight), claim_ending (they waited too long), stopping (the process was stopping), expired (their claim ran out: found by the sweeper).",
	}, []string{"reason"})
)

func statusClass(status int) string {
	if status == 0 {
		return "error"
	}
	return strconv.Itoa(status/100) + "xx"
}

// Metrics implements app.DeliveryMetrics in Prometheus.
type Metrics struct{}

// Attempted implements app.DeliveryMetrics.
func (Metrics) Attempted(next app.Next, err error) {
	switch {
	case err != nil, next.Retry != nil:
		outcomes.WithLabelValues("retry").Inc()
	case next.GiveUp != nil:
		outcomes.WithLabelValues("given_up").Inc()
	case !next.Done:
		outcomes.WithLabelValues("snoozed").Inc()
	default:
		outcomes.WithLabelValues("done").Inc()
	}
}

// Deferred implements app.DeliveryMetrics.
func (Metrics) Deferred() { deferrals.Inc() }

// HandedOff implements app.DeliveryMetrics.
func (Metrics) HandedOff(reason string, n int) { handoffs.WithLabelValues(reason).Add(float64(n)) }
