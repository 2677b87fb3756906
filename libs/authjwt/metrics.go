package authjwt

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	revocationFeedUp = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "bizassist_auth_revocation_feed_up",
		Help: "1 while the last read of identity's revocation stream succeeded; 0 while revocations may be arriving late.",
	})
	apiKeyExchanges = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "bizassist_auth_api_key_exchanges_total",
		Help: "API keys exchanged with identity for a short-lived token, by outcome (ok, refused, error).",
	}, []string{"outcome"})
)
