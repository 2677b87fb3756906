package platform_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform"
)

func TestEveryRunsAtOnceKeepsGoingAfterFailuresAndStops(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	w := platform.Every("test", 10*time.Millisecond, func(context.Context) error {
		runs.Add(1)
		return errors.New("a passing failure")
	})
	require.Equal(t, "test", w.Name)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	require.Eventually(t, func() bool { return runs.Load() >= 3 }, 5*time.Second, 5*time.Millisecond,
		"failed runs do not stop the schedule")
	cancel()
	require.NoError(t, <-done)
}

func TestEveryRunsBeforeTheFirstTick(t *testing.T) {
	t.Parallel()
	ran := make(chan struct{}, 1)
	w := platform.Every("once", time.Hour, func(context.Context) error { ran <- struct{}{}; return nil })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = w.Run(ctx) }()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Every did not run at once")
	}
}
