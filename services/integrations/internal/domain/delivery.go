package domain

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Outcome is what one delivery attempt means for the delivery and its subscription.
type Outcome int

const (
	Delivered Outcome = iota // 2xx: done
	Gone                     // 410: the receiver unsubscribed; remove the subscription
	Throttled                // 429/503 with Retry-After: try again when the receiver asked
	Failed                   // anything else: retry with backoff
)

// MaxRetryAfter caps how long a receiver may push a retry out, so a bogus header cannot park a
// delivery beyond the retry window.
const MaxRetryAfter = 6 * time.Hour

// Judge classifies an attempt from its status code (0 when no response came back) and the
// Retry-After header, which may be delay-seconds or an HTTP date.
func Judge(status int, retryAfter string, now time.Time) (Outcome, time.Duration) {
	switch {
	case status >= 200 && status < 300:
		return Delivered, 0
	case status == http.StatusGone:
		return Gone, 0
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		if d, ok := parseRetryAfter(retryAfter, now); ok {
			return Throttled, d
		}
	}
	return Failed, 0
}

func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0, false
		}
		d = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = max(at.Sub(now), 0)
	} else {
		return 0, false
	}
	return min(d, MaxRetryAfter), true
}

// RetryPolicy spaces retries exponentially with jitter and bounds how long a delivery is tried
// and how long a subscription may fail before it is disabled.
type RetryPolicy struct {
	Base time.Duration // delay after the first failure, before jitter
	Cap  time.Duration // longest delay between two attempts
	// GiveUpAfter is how long after the event a failing delivery is still retried.
	GiveUpAfter time.Duration
	// DisableAfter is how long a subscription may fail without one success before it is disabled.
	DisableAfter time.Duration
}

// DefaultRetryPolicy retries for about three days: 30 s, 1 m, 2 m ... then every 6 h.
var DefaultRetryPolicy = RetryPolicy{Base: 30 * time.Second, Cap: 6 * time.Hour, GiveUpAfter: 72 * time.Hour, DisableAfter: 72 * time.Hour}

// Backoff is the delay after the given number of failures (1 for the first), with "equal jitter":
// half the exponential delay plus a random share of the other half, so receivers that failed
// together do not all come back at once.
func (p RetryPolicy) Backoff(failures int) time.Duration {
	d := p.Base
	for i := 1; i < failures && d < p.Cap; i++ {
		d *= 2
	}
	d = min(d, p.Cap)
	half := d / 2
	return half + rand.N(half+1) //nolint:gosec // jitter needs no cryptographic randomness
}

// ShouldDisable reports whether a subscription failing since failingSince has failed long enough.
func (p RetryPolicy) ShouldDisable(failingSince, now time.Time) bool {
	return now.Sub(failingSince) >= p.DisableAfter
}

// Failure is how a failed attempt is described to the account that owns it: a fixed phrase or
// the status code, never an address that was dialled or what a name resolved to (operators find
// those in the logs).
type Failure string

const (
	FailureAddressNotAllowed Failure = "address not allowed"
	FailureConnectionRefused Failure = "connection refused"
	FailureTimeout           Failure = "timeout"
	FailureTLS               Failure = "TLS error"
	FailureHostNotFound      Failure = "host not found"
	FailureRedirect          Failure = "redirect not followed"
	FailureConnection        Failure = "connection failed"
)

// StatusFailure describes an answer that was not a success.
func StatusFailure(status int) Failure { return Failure("HTTP " + strconv.Itoa(status)) }
