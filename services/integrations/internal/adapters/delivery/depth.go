package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
)

// DepthEvery is how often the queue depth is sampled: a fraction of a dashboard's resolution,
// and one cheap index scan per replica.
const DepthEvery = 15 * time.Second

var queueDepth = promauto.NewGauge(prometheus.GaugeOpts{
	Name: "bizassist_webhook_queue_depth",
	Help: "Delivery jobs waiting in River's queue (available, retryable or scheduled), sampled every 15 s.",
})

var stuckJobs = promauto.NewGauge(prometheus.GaugeOpts{
	Name: "bizassist_webhook_deliveries_stuck",
	Help: "Delivery jobs running for longer than the job timeout (their worker died; the rescuer retries them), sampled every 15 s.",
})

// DepthSampler publishes the number of waiting delivery jobs as bizassist_webhook_queue_depth and
// of jobs running past JobTimeout as bizassist_webhook_deliveries_stuck; the service runs Sample
// every DepthEvery (a failed sample keeps the last values).
type DepthSampler struct {
	Pool       *pgxpool.Pool
	JobTimeout time.Duration
}

// Sample reads the depth once and sets the gauges.
func (s DepthSampler) Sample(ctx context.Context) error {
	var waiting, stuck int64
	err := s.Pool.QueryRow(ctx, `SELECT
			count(*) FILTER (WHERE state IN ('available', 'retryable', 'scheduled')),
			count(*) FILTER (WHERE state = 'running' AND attempted_at < now() - make_interval(secs => $2))
		FROM river_job WHERE kind = $1`, app.DeliveryJob{}.Kind(), s.JobTimeout.Seconds()).Scan(&waiting, &stuck)
	if err != nil {
		return fmt.Errorf("count waiting deliveries: %w", err)
	}
	queueDepth.Set(float64(waiting))
	stuckJobs.Set(float64(stuck))
	return nil
}
