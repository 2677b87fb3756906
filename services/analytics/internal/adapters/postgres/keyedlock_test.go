package postgres

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func newKeyedLock() *keyedLock { return &keyedLock{held: map[string][]chan struct{}{}} }

// waitQueued waits until n waiters are queued behind key's holder.
func waitQueued(t *testing.T, k *keyedLock, key string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		k.mu.Lock()
		defer k.mu.Unlock()
		return len(k.held[key]) == n
	}, 5*time.Second, time.Millisecond)
}

// One account's reservations queue on its key: they must be served in the order they came. The
// lock used to wake every waiter to race for the key, and a waiter could lose that race to dozens
// of later ones.
func TestKeyedLockServesWaitersInTheOrderTheyCame(t *testing.T) {
	k := newKeyedLock()
	unlock, err := k.lock(context.Background(), "acc chat")
	require.NoError(t, err)
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	const waiters = 20
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := k.lock(context.Background(), "acc chat")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			u()
		}()
		waitQueued(t, k, "acc chat", i+1)
	}
	unlock()
	wg.Wait()
	want := make([]int, waiters)
	for i := range want {
		want[i] = i
	}
	require.Equal(t, want, order)
	require.Empty(t, k.held, "the key is free once the last waiter is done")
}

func TestKeyedLockWaiterThatGivesUpLeavesTheQueue(t *testing.T) {
	k := newKeyedLock()
	unlock, err := k.lock(context.Background(), "k")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error)
	go func() {
		_, err := k.lock(ctx, "k")
		gaveUp <- err
	}()
	waitQueued(t, k, "k", 1)
	got := make(chan func())
	go func() {
		u, err := k.lock(context.Background(), "k")
		if err != nil {
			t.Error(err)
			u = func() {}
		}
		got <- u
	}()
	waitQueued(t, k, "k", 2)
	cancel()
	require.ErrorIs(t, <-gaveUp, context.Canceled)
	waitQueued(t, k, "k", 1)
	unlock()
	(<-got)()
	require.Empty(t, k.held)
	// Another key was never held up by this one.
	u, err := k.lock(context.Background(), "other")
	require.NoError(t, err)
	u()
}

// A waiter whose context ends as the key is handed to it passes the key on: nobody is left
// waiting for a key that no one holds.
func TestKeyedLockPassesOnAKeyHandedToAWaiterThatGaveUp(t *testing.T) {
	k := newKeyedLock()
	for range 200 {
		unlock, err := k.lock(context.Background(), "k")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			if u, err := k.lock(ctx, "k"); err == nil {
				u()
			}
		}()
		waitQueued(t, k, "k", 1)
		go cancel()
		unlock()
		<-done
		ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
		u, err := k.lock(ctx2, "k")
		cancel2()
		require.NoError(t, err, "the key is free again")
		u()
	}
	require.Empty(t, k.held)
}
