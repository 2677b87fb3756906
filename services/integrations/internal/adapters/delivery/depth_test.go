package delivery

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
)

// TestDepthCountsWaitingDeliveriesOnly: available and scheduled delivery jobs count; finished
// ones and other kinds (the prune) do not.
func TestDepthCountsWaitingDeliveriesOnly(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t, "integrations")
	require.NoError(t, Migrate(ctx, pool))
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	later := &river.InsertOpts{Queue: QueueName, ScheduledAt: time.Now().Add(time.Hour)}
	_, err = client.InsertMany(ctx, []river.InsertManyParams{
		{Args: Args{DeliveryID: "dlv_1"}}, {Args: Args{DeliveryID: "dlv_2"}}, {Args: Args{DeliveryID: "dlv_3"}},
		{Args: Args{DeliveryID: "dlv_later"}, InsertOpts: later},
		{Args: PruneArgs{}},
	})
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE args->>'deliveryId' = 'dlv_3'`)
	require.NoError(t, err)

	require.NoError(t, DepthSampler{Pool: pool, JobTimeout: time.Minute}.Sample(ctx))
	require.Equal(t, 3.0, testutil.ToFloat64(queueDepth))
}
