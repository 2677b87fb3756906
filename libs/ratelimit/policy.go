package ratelimit

import (
	"fmt"
	"strings"
	"time"
)

// Policy is a named limit: Rate requests per Period, with a burst of Burst (Rate when zero).
type Policy struct {
	Name   string
	Rate   int
	Period time.Duration
	Burst  int
}

// The policies of the interface specification (docs/decisions.md, "Rate limiting").
var (
	// API is the general authenticated API, keyed by client IP.
	API = Policy{Name: "api", Rate: 60, Period: time.Minute}
	// Feed is the public agent-brain feed, keyed by client IP.
	Feed = Policy{Name: "feed", Rate: 60, Period: time.Minute}
	// Stats is the public scout statistics, keyed by client IP.
	Stats = Policy{Name: "stats", Rate: 30, Period: time.Minute}
	// Login is login attempts, keyed by client IP.
	Login = Policy{Name: "login", Rate: 10, Period: time.Minute}
)

// EmailKey is the key of a per-account policy: the address trimmed and lower-cased, so that
// "A@x.io" and "a@x.io" share one bucket.
func EmailKey(email string) string {
	return strings.ToLower(strings.TrimSpace(email))
}

func (p Policy) validate() error {
	if p.Name == "" || p.Rate < 1 || p.Period <= 0 || p.Burst < 0 {
		return fmt.Errorf("ratelimit: invalid policy %+v: need a name, rate >= 1, a positive period and burst >= 0", p)
	}
	return nil
}

// burst is how many requests an idle bucket admits at once.
func (p Policy) burst() int {
	if p.Burst == 0 {
		return p.Rate
	}
	return p.Burst
}

// interval is the time one request costs; depth is how far ahead of now a full burst puts the
// bucket (Period when the burst is the rate).
func (p Policy) interval() time.Duration { return p.Period / time.Duration(p.Rate) }
func (p Policy) depth() time.Duration    { return p.interval() * time.Duration(p.burst()) }

// window names the period for messages: "minute" rather than "1m0s".
func (p Policy) window() string {
	switch p.Period {
	case time.Second:
		return "second"
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	default:
		return p.Period.String()
	}
}
