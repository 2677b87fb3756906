package delivery

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
)

func job(id string) app.DeliveryJob { return app.DeliveryJob{DeliveryID: id} }

// otherKind is a job that is not a delivery (the prune, say).
type otherKind struct{}

func (otherKind) Kind() string { return "integrations.other" }

// queued is a fresh queue holding jobs.
func queued(t *testing.T, jobs []river.InsertManyParams) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.New(t, "integrations")
	require.NoError(t, Migrate(ctx, pool))
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	_, err = client.InsertMany(ctx, jobs)
	require.NoError(t, err)
	return pool
}

// TestDepthCountsWaitingDeliveriesOnly: available and scheduled delivery jobs count; finished
// ones and other kinds (the prune) do not.
func TestDepthCountsWaitingDeliveriesOnly(t *testing.T) {
	ctx := context.Background()
	later := &river.InsertOpts{Queue: QueueName, ScheduledAt: time.Now().Add(time.Hour)}
	pool := queued(t, []river.InsertManyParams{
		{Args: job("dlv_1")}, {Args: job("dlv_2")}, {Args: job("dlv_3")},
		{Args: job("dlv_later"), InsertOpts: later},
		{Args: otherKind{}},
	})
	_, err := pool.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE args->>'deliveryId' = 'dlv_3'`)
	require.NoError(t, err)

	require.NoError(t, DepthSampler{Pool: pool, JobTimeout: time.Minute}.Sample(ctx))
	require.Equal(t, 3.0, testutil.ToFloat64(queueDepth))
}

// TestStuckCountsJobsRunningPastTheJobTimeout: a running delivery job attempted longer ago than
// the job timeout is stuck (its worker died); one within it, or another kind, is not.
func TestStuckCountsJobsRunningPastTheJobTimeout(t *testing.T) {
	ctx := context.Background()
	pool := queued(t, []river.InsertManyParams{
		{Args: job("dlv_dead_1")}, {Args: job("dlv_dead_2")},
		{Args: job("dlv_live")}, {Args: otherKind{}},
	})
	_, err := pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = CASE
		WHEN args->>'deliveryId' = 'dlv_live' THEN now() - interval '10 seconds' ELSE now() - interval '5 minutes' END`)
	require.NoError(t, err)

	require.NoError(t, DepthSampler{Pool: pool, JobTimeout: time.Minute}.Sample(ctx))
	require.Equal(t, 2.0, testutil.ToFloat64(stuckJobs))
	require.Equal(t, 0.0, testutil.ToFloat64(queueDepth))
}
