package groupcommit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/groupcommit"
)

// Callers that arrive while a batch runs share the next one, every item runs exactly once, and
// each caller gets its own item's outcome.
func TestGroupSharesBatchesAndAnswersEachCaller(t *testing.T) {
	t.Parallel()
	var (
		mu      sync.Mutex
		seen    = map[int]int{}
		batches atomic.Int32
		largest atomic.Int32
	)
	g := groupcommit.New(8, time.Second, func(_ context.Context, items []int) error {
		batches.Add(1)
		if int32(len(items)) > largest.Load() {
			largest.Store(int32(len(items)))
		}
		for _, it := range items {
			if it%10 == 7 {
				return errors.New("item 7 is refused") // the whole batch rolls back
			}
		}
		time.Sleep(5 * time.Millisecond) // a commit's worth of time for others to queue: what is measured is a slow commit, so it must take time
		mu.Lock()
		defer mu.Unlock()
		for _, it := range items {
			seen[it]++
		}
		return nil
	})
	var wg sync.WaitGroup
	errs := make([]error, 60)
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = g.Do(context.Background(), i)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if i%10 == 7 {
			require.Error(t, err, "item %d", i)
			require.Zero(t, seen[i])
			continue
		}
		require.NoError(t, err, "item %d", i)
		require.Equal(t, 1, seen[i], "item %d applied once", i)
	}
	require.Greater(t, largest.Load(), int32(1), "concurrent callers shared a batch")
	require.LessOrEqual(t, largest.Load(), int32(8), "batches are bounded")
	require.Less(t, batches.Load(), int32(60+6*8), "fewer runs than one per item plus the retries")
}

// A caller whose context ends still gets its item applied, and the group keeps working.
func TestGroupFinishesAnItemWhoseCallerGaveUp(t *testing.T) {
	t.Parallel()
	var applied atomic.Int32
	g := groupcommit.New(4, time.Second, func(ctx context.Context, items []int) error {
		require.NoError(t, ctx.Err(), "batches run detached from the callers' contexts")
		applied.Add(int32(len(items)))
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, g.Do(ctx, 1))
	require.NoError(t, g.Do(context.Background(), 2))
	require.EqualValues(t, 2, applied.Load())
}

func TestGroupRefusesAnUnboundedConfiguration(t *testing.T) {
	t.Parallel()
	run := func(context.Context, []int) error { return nil }
	require.Panics(t, func() { groupcommit.New(0, time.Second, run) }, "a batch of at most 0 items would never run")
	require.Panics(t, func() { groupcommit.New(1, 0, run) })
	require.Panics(t, func() { groupcommit.New[int](1, time.Second, nil) })
}
