// Package clocktest is a clock that tests move by hand, so time-dependent behaviour (expiry,
// refresh intervals, health drift) is tested without sleeping.
package clocktest

import (
	"sync"
	"time"
)

// Clock is a settable time source, safe for concurrent use. Pass its Now method wherever code
// takes a func() time.Time.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock reading at.
func New(at time.Time) *Clock { return &Clock{now: at} }

// Now is the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
