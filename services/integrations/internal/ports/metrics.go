package ports

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
)

// Metric names are shared with the dashboards and alerts; keep them stable. The attempts
// themselves are counted by the sender (adapters/delivery).
var (
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

// countOutcome counts what an attempt meant for its delivery.
func countOutcome(next app.Next, err error) {
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
