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
	q, clock, r := clockedQueue()
	require.True(t, q.enter(r), "a free slot is taken without reading the clock")

	admitted := make(chan bool)
	go func() { admitted <- q.enter(r) }()
	clock <- start // the waiter is past the free-slot path: it waits from start
	q.leave()
	clock <- start.Add(queueTarget + time.Millisecond) // it got the slot just past the target
	require.True(t, <-admitted)

	go func() { admitted <- q.enter(r) }()
	clock <- start.Add(queueTarget + 2*time.Millisecond)
	require.False(t, <-admitted, "refused at once while the queue stands")

	go func() { admitted <- q.enter(r) }()
	clock <- start.Add(queueTarget + queueInterval + 2*time.Millisecond) // the interval is over: it waits again
	q.leave()
	clock <- start.Add(queueTarget + queueInterval + 3*time.Millisecond)
	require.True(t, <-admitted)
}

// A waiter served within the target leaves the queue as it was: a burst being absorbed.
func TestAShortWaitLeavesTheQueueDraining(t *testing.T) {
	t.Parallel()
	q, clock, r := clockedQueue()
	require.True(t, q.enter(r))
	admitted := make(chan bool)
	go func() { admitted <- q.enter(r) }()
	clock <- start
	q.leave()
	clock <- start.Add(queueTarget)
	require.True(t, <-admitted)
	require.Zero(t, q.standingUntil.Load())
}

// clockedQueue is a queue of one slot, whose wait is an hour, that reads the time from clock: each
// reading is a send the test makes, so it knows where the waiter is.
func clockedQueue() (*queue, chan time.Time, *http.Request) {
	clock := make(chan time.Time)
	q := &queue{slots: make(chan struct{}, 1), wait: time.Hour, now: func() time.Time { return <-clock }}
	return q, clock, httptest.NewRequest(http.MethodGet, "/", nil)
}

// start is the clock's first reading.
var start = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
