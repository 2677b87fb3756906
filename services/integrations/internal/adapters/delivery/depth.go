package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// DepthEvery is how often the queue depth is sampled: a fraction of a dashboard's resolution,
// and one cheap index scan per replica.
const DepthEvery = 15 * time.Second

var queueDepth = promauto.NewGauge(prometheus.GaugeOpts{
	Name: "bizassist_webhook_queue_depth",
	Help: "Delivery jobs waiting in River's queue (available, retryable or scheduled), sampled every 15 s.",
})

// DepthSampler publishes the number of waiting delivery jobs as bizassist_webhook_queue_depth;
// the service runs Sample every DepthEvery (a failed sample keeps the last value).
type DepthSampler struct {
	Pool *pgxpool.Pool
}

// Sample reads the depth once and sets the gauge.
func (s DepthSampler) Sample(ctx context.Context) error {
	var n int64
	err := s.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job
		WHERE kind = $1 AND state IN ('available', 'retryable', 'scheduled')`, Args{}.Kind()).Scan(&n)
	if err != nil {
		return fmt.Errorf("count waiting deliveries: %w", err)
	}
	queueDepth.Set(float64(n))
	return nil
}
