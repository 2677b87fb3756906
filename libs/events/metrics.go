package events

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Metric names are shared with the dashboards; keep them stable.
var (
	outboxPending = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bizassist_events_outbox_pending",
		Help: "Outbox rows not yet published, sampled by the relay.",
	}, []string{"schema"})
	published = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "bizassist_events_published_total",
		Help: "Events the relay published to Redis.",
	}, []string{"type"})
	relayErrors = promauto.NewCounter(prometheus.CounterOpts{
		Name: "bizassist_events_relay_errors_total",
		Help: "Relay batches that failed and were left for the next attempt.",
	})
	streamsRebuilt = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "bizassist_events_streams_rebuilt_total",
		Help: "Streams the relay found lost in Redis and republished from the outbox.",
	}, []string{"type"})
	consumed = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "bizassist_events_consumed_total",
		Help: "Messages a consumer group handled, by result (ok, duplicate, error, deadletter).",
	}, []string{"group", "type", "result"})
	consumerLag = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bizassist_events_consumer_lag",
		Help: "Messages of the stream the group has not acknowledged yet (undelivered + pending), sampled.",
	}, []string{"group", "type"})
)
