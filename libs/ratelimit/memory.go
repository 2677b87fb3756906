package ratelimit

import (
	"sync"
	"time"
)

// sweepEvery is how often the in-memory limiter drops keys whose buckets are full again; those
// are indistinguishable from absent keys, so memory stays bounded by recently active clients.
const sweepEvery = 10 * time.Second

type memKey struct{ policy, key string }

// debt is what a key took from this process's bucket while Redis was away, not yet charged to
// the shared bucket; since is when the first of those requests came.
type debt struct {
	n      int
	since  time.Time
	period time.Duration
}

// memoryLimiter is the same GCRA as the Redis script, held in this process. It stores each
// key's theoretical arrival time (TAT), and the requests allowed here while Redis was away that
// the shared bucket has not yet been charged for.
type memoryLimiter struct {
	mu        sync.Mutex
	tat       map[memKey]time.Time
	owed      map[memKey]debt
	nextSweep time.Time
}

func newMemoryLimiter() *memoryLimiter {
	return &memoryLimiter{tat: make(map[memKey]time.Time), owed: make(map[memKey]debt)}
}

func (m *memoryLimiter) allow(now time.Time, p Policy, key string) Result {
	return m.take(now, p, key, 1)
}

// take takes cost requests (0 only looks: the result's ResetAfter tells how full the bucket is).
func (m *memoryLimiter) take(now time.Time, p Policy, key string, cost int) Result {
	interval := p.interval()
	k := memKey{p.Name, key}

	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)

	tat := m.tat[k]
	if tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval * time.Duration(cost))
	// The request fits if the bucket, after taking it, is at most a burst's depth ahead of now.
	slack := now.Sub(newTAT.Add(-p.depth()))
	if slack < 0 {
		return Result{Limit: p.Rate, RetryAfter: -slack, ResetAfter: tat.Sub(now)}
	}
	if cost > 0 {
		m.tat[k] = newTAT
	}
	return Result{Allowed: true, Limit: p.Rate, Remaining: int(slack / interval), ResetAfter: newTAT.Sub(now)}
}

// owe records n requests of key allowed here that the shared bucket has not seen.
func (m *memoryLimiter) owe(now time.Time, p Policy, key string, n int) {
	k := memKey{p.Name, key}
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.owed[k]
	if !ok {
		d = debt{since: now, period: p.depth()}
	}
	d.n += n
	m.owed[k] = d
}

// settle hands over key's debt and forgets it; the caller charges it to the shared bucket, or
// owes it again when that fails.
func (m *memoryLimiter) settle(p Policy, key string) debt {
	k := memKey{p.Name, key}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.owed[k]
	delete(m.owed, k)
	return d
}

func (m *memoryLimiter) sweep(now time.Time) {
	if now.Before(m.nextSweep) {
		return
	}
	for k, tat := range m.tat {
		if !tat.After(now) {
			delete(m.tat, k)
		}
	}
	// A debt older than its period would have drained from the shared bucket by now.
	for k, d := range m.owed {
		if now.Sub(d.since) >= d.period {
			delete(m.owed, k)
		}
	}
	m.nextSweep = now.Add(sweepEvery)
}
