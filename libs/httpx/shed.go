package httpx

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/bizassist/bizassist/libs/apperr"
)

var requestsShed = promauto.NewCounter(prometheus.CounterOpts{
	Name: "bizassist_http_requests_shed_total",
	Help: "API requests refused 503 overloaded: HTTP_MAX_IN_FLIGHT were being served and none ended within HTTP_QUEUE_WAIT.",
})

// errOverloaded is the answer to a request shed; Retry-After is one second.
var errOverloaded = apperr.Unavailable("overloaded", "the service is serving all it can; retry in a moment").With("retryAfter", 1)

// Shed serves at most limit requests of next at once. One more waits up to wait for a slot and
// is then refused 503 overloaded with Retry-After, so that load past what the process can serve
// is turned away in a moment, in the API's words, instead of queueing without bound while every
// admitted request slows too. A limit of 0 serves every request.
func Shed(limit int, wait time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if limit <= 0 {
			return next
		}
		slots := make(chan struct{}, limit)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case slots <- struct{}{}:
			default:
				timer := time.NewTimer(wait)
				select {
				case slots <- struct{}{}:
					timer.Stop()
				case <-timer.C:
					requestsShed.Inc()
					Fail(w, r, errOverloaded)
					return
				case <-r.Context().Done():
					timer.Stop()
					return // the client left while waiting: nobody reads an answer
				}
			}
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		})
	}
}
