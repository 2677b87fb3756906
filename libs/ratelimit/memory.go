package ratelimit

import (
	"sync"
	"time"
)

// sweepEvery is how often the in-memory limiter drops keys whose buckets are full again; those
// are indistinguishable from absent keys, so memory stays bounded by recently active clients.
const sweepEvery = 10 * time.Second

type memKey struct{ policy, key string }

// memoryLimiter is the same GCRA as the Redis script, held in this process, for when Redis is
// unreachable. It stores each key's theoretical arrival time (TAT).
type memoryLimiter struct {
	mu        sync.Mutex
	tat       map[memKey]time.Time
	nextSweep time.Time
}

func newMemoryLimiter() *memoryLimiter {
	return &memoryLimiter{tat: make(map[memKey]time.Time)}
}

func (m *memoryLimiter) allow(now time.Time, p Policy, key string) Result {
	return m.take(now, p, key, 1)
}

// take takes cost requests (0 only looks: the result's ResetAfter tells how full the bucket is).
func (m *memoryLimiter) take(now time.Time, p Policy, key string, cost int) Result {
	interval := p.Period / time.Duration(p.Rate) // time one request "costs"
	k := memKey{p.Name, key}

	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)

	tat := m.tat[k]
	if tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval * time.Duration(cost))
	// The request fits if the bucket, after taking it, is at most Period (= burst) ahead of now.
	slack := now.Sub(newTAT.Add(-p.Period))
	if slack < 0 {
		return Result{Limit: p.Rate, RetryAfter: -slack, ResetAfter: tat.Sub(now)}
	}
	if cost > 0 {
		m.tat[k] = newTAT
	}
	return Result{Allowed: true, Limit: p.Rate, Remaining: int(slack / interval), ResetAfter: newTAT.Sub(now)}
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
	m.nextSweep = now.Add(sweepEvery)
}
