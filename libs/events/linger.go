package events

import (
	"context"
	"time"
)

// lingerWindow is how often a lingerer re-estimates the rate it sees.
const lingerWindow = time.Second

// lingerer decides when a reader of batches (a consumer lane, the relay) pauses after a batch
// smaller than its limit, so that the next batch gathers more. A pause pays only when it is
// expected to gather more than one message: the reader lingers only while messages arrive at
// two or more per pause, measured over the last lingerWindow. At lower rates every message is
// handled as soon as it comes, which keeps latency low when there is CPU to spare.
type lingerer struct {
	linger time.Duration
	since  time.Time // start of the current window
	seen   int       // messages in it
	busy   bool      // the last full window's rate was worth lingering for
}

// after records a batch of n messages (0 for a read that found none) and pauses if the reader
// should linger after it (full: the batch was at its limit, so more are waiting and no pause is
// needed). It says whether it paused, and returns early when ctx ends.
func (l *lingerer) after(ctx context.Context, n int, full bool) bool {
	if l.linger <= 0 {
		return false
	}
	now := time.Now()
	if l.since.IsZero() {
		l.since = now
	}
	l.seen += n
	if elapsed := now.Sub(l.since); elapsed >= lingerWindow {
		l.busy = float64(l.seen)/elapsed.Seconds()*l.linger.Seconds() >= 2
		l.since, l.seen = now, 0
	}
	if !l.busy || full || n == 0 {
		return false
	}
	select {
	case <-ctx.Done():
	case <-time.After(l.linger):
	}
	return true
}
