package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A waiter that got its slot only past the target marks the queue standing: for an interval the
// next request that finds no free slot is refused at once, not after the whole wait (an hour
// here, so a test that waited would time out), and once the interval is over it may wait again.
func TestALongWaitMakesTheQueueStand(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	clock := make(chan time.Time)
	q := &queue{slots: make(chan struct{}, 1), wait: time.Hour, now: func() time.Time { return <-clock }}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	require.True(t, q.enter(r), "a free slot is taken without reading the clock")

	admitted := make(chan bool)
	go func() { admitted <- q.enter(r) }()
	clock <- t0 // the waiter is past the free-slot path: it waits from t0
	q.leave()
	clock <- t0.Add(queueTarget + time.Millisecond) // it got the slot just past the target
	require.True(t, <-admitted)

	go func() { admitted <- q.enter(r) }()
	clock <- t0.Add(queueTarget + 2*time.Millisecond)
	require.False(t, <-admitted, "refused at once while the queue stands")

	go func() { admitted <- q.enter(r) }()
	clock <- t0.Add(queueTarget + queueInterval + 2*time.Millisecond) // the interval is over: it waits again
	q.leave()
	clock <- t0.Add(queueTarget + queueInterval + 3*time.Millisecond)
	require.True(t, <-admitted)
}

// A waiter served within the target leaves the queue as it was: a burst being absorbed.
func TestAShortWaitLeavesTheQueueDraining(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	clock := make(chan time.Time)
	q := &queue{slots: make(chan struct{}, 1), wait: time.Hour, now: func() time.Time { return <-clock }}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	require.True(t, q.enter(r))
	admitted := make(chan bool)
	go func() { admitted <- q.enter(r) }()
	clock <- t0
	q.leave()
	clock <- t0.Add(queueTarget)
	require.True(t, <-admitted)
	require.Zero(t, q.standingUntil.Load())
}
