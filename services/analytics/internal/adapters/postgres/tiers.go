package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

// TiersEvery is how often the client gauges are sampled: tiers move with usage and the hourly
// sweep, so a minute is fine-grained enough for one scan of health_current per replica.
const TiersEvery = time.Minute

// Metric names are shared with the dashboards; keep them stable.
var (
	clientsByTier = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bizassist_analytics_clients",
		Help: "Scored client accounts per current health tier, sampled every minute.",
	}, []string{"tier"})
	churnAtRisk = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "bizassist_analytics_churn_at_risk",
		Help: "Scored client accounts whose churn probability is at least 60, sampled every minute.",
	})
)

// tiers are the label values set on every sample, so an empty tier reads 0 rather than vanishing.
var tiers = []health.Tier{health.Healthy, health.AtRisk, health.Critical}

// TierSampler publishes how many clients are in each health tier and how many are likely to
// churn; the service runs Sample every TiersEvery (a failed sample keeps the last values).
type TierSampler struct {
	Pool *pgxpool.Pool
}

// Sample counts the clients once and sets the gauges.
func (s TierSampler) Sample(ctx context.Context) error {
	rows, err := s.Pool.Query(ctx, `SELECT h.tier, count(*), count(*) FILTER (WHERE h.churn >= $1)
		FROM health_current h JOIN accounts a USING (account_id)
		WHERE a.owner_id IS NOT NULL
		GROUP BY h.tier`, app.DefaultChurnThreshold)
	if err != nil {
		return fmt.Errorf("count clients per tier: %w", err)
	}
	counts := map[health.Tier]int64{}
	var (
		tier              string
		n, likely, atRisk int64
	)
	if _, err := pgx.ForEachRow(rows, []any{&tier, &n, &likely}, func() error {
		counts[health.Tier(tier)] = n
		atRisk += likely
		return nil
	}); err != nil {
		return fmt.Errorf("count clients per tier: %w", err)
	}
	for _, t := range tiers {
		clientsByTier.WithLabelValues(string(t)).Set(float64(counts[t]))
	}
	churnAtRisk.Set(float64(atRisk))
	return nil
}
