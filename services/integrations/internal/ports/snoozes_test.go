package ports

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/delivery"
)

type snoozeArgs struct{}

func (snoozeArgs) Kind() string { return "integrations.test-snooze" }

// snoozeWorker snoozes its job twice, noting what snoozes reads on each run.
type snoozeWorker struct {
	river.WorkerDefaults[snoozeArgs]
	seen chan int
}

func (w *snoozeWorker) Work(_ context.Context, job *river.Job[snoozeArgs]) error {
	n := snoozes(job.JobRow)
	w.seen <- n
	if n < 2 {
		return river.JobSnooze(time.Millisecond)
	}
	return nil
}

// The deliveries' backoff behind a busy account grows with the job's deferrals, so snoozes must
// count River's snoozes (River gives a snoozed job its attempt back, so attempts do not).
func TestSnoozesCountsTheJobsSnoozes(t *testing.T) {
	pool := pgtest.New(t, "integrations")
	require.NoError(t, delivery.Migrate(context.Background(), pool))
	w := &snoozeWorker{seen: make(chan int, 3)}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Workers: workers,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}}, FetchCooldown: 5 * time.Millisecond, FetchPollInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, c.Stop(context.Background())) })
	_, err = c.Insert(context.Background(), snoozeArgs{}, nil)
	require.NoError(t, err)
	for want := range 3 {
		select {
		case got := <-w.seen:
			require.Equal(t, want, got)
		case <-time.After(10 * time.Second):
			t.Fatalf("run %d of the job did not come", want+1)
		}
	}
}
