package httpx

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/bizassist/bizassist/libs/apperr"
)

var requestsShed = promauto.NewCounter(prometheus.CounterOpts{
	Name: "bizassist_http_requests_shed_total",
	Help: "API requests refused 503 overloaded: HTTP_MAX_IN_FLIGHT were being served and none ended within HTTP_QUEUE_WAIT (at once while the queue stood).",
})

// errOverloaded is the answer to a request shed; Retry-After is one second.
var errOverloaded = apperr.Unavailable("overloaded", "the service is serving all it can; retry in a moment").With("retryAfter", 1)

// The queue in front of the slots is controlled as CoDel (RFC 8289) controls a router's: a queue
// that drains within queueTarget is a burst being absorbed, one whose waiters kept waiting longer
// than that for a whole queueInterval is standing, and waiting in it only adds latency. While it
// stands, a request that finds no free slot is refused at once instead of waiting the full wait,
// so the requests admitted under overload are served about as fast as at capacity.
const (
	queueTarget   = 5 * time.Millisecond
	queueInterval = 100 * time.Millisecond
)

// Shed serves at most limit requests of next at once. One more waits up to wait for a slot (not
// at all while the queue stands) and is then refused 503 overloaded with Retry-After, so that
// load past what the process can serve is turned away in a moment, in the API's words, instead
// of queueing without bound while every admitted request slows too. A limit of 0 serves every
// request.
func Shed(limit int, wait time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if limit <= 0 {
			return next
		}
		q := &queue{slots: make(chan struct{}, limit), wait: wait, now: time.Now}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !q.enter(r) {
				if r.Context().Err() == nil {
					requestsShed.Inc()
					Fail(w, r, errOverloaded)
				}
				return
			}
			defer q.leave()
			next.ServeHTTP(w, r)
		})
	}
}

// queue is Shed's slots and the state of the wait for them.
type queue struct {
	slots chan struct{}
	wait  time.Duration
	now   func() time.Time
	// standingUntil (Unix nanoseconds) is when the queue counts as drained again: set each time a
	// waiter waited past queueTarget, or gave up, to queueInterval after that moment.
	standingUntil atomic.Int64
}

// enter takes a slot, waiting for one unless the queue stands, and says whether it got one: false
// when it timed out, the queue stood, or the client left.
func (q *queue) enter(r *http.Request) bool {
	select {
	case q.slots <- struct{}{}:
		return true
	default:
	}
	since := q.now()
	if since.UnixNano() < q.standingUntil.Load() {
		return false
	}
	timer := time.NewTimer(q.wait)
	defer timer.Stop()
	select {
	case q.slots <- struct{}{}:
		if at := q.now(); at.Sub(since) > queueTarget {
			q.standingUntil.Store(at.Add(queueInterval).UnixNano())
		}
		return true
	case <-timer.C:
		q.standingUntil.Store(q.now().Add(queueInterval).UnixNano())
		return false
	case <-r.Context().Done():
		return false // the client left while waiting: nobody reads an answer
	}
}

func (q *queue) leave() { <-q.slots }
