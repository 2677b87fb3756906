package delivery

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// Bounds of how long a delivery is put off when its account has no free slot. River records each
// deferral on the job's row, so behind a hanging receiver they are spaced up to a minute apart.
const (
	minDeferral = 20 * time.Millisecond
	maxDeferral = time.Minute
	// slowAttempt is how long the account's oldest running attempt must have taken before a
	// job's repeated deferrals grow longer: behind a fast receiver a slot frees any moment.
	slowAttempt = time.Second
)

// accountSlots bounds how many deliveries of one account run at once in this process, so a
// receiver that hangs until the timeout holds its own account's share of the workers and no more.
type accountSlots struct {
	limit   int
	now     func() time.Time
	mu      sync.Mutex
	running map[string][]time.Time // start of each running attempt, by account
}

func newAccountSlots(limit int, now func() time.Time) *accountSlots {
	return &accountSlots{limit: limit, now: now, running: map[string][]time.Time{}}
}

// take reserves one of the account's slots and returns the function that gives it back. When
// the account's share is in use it returns nil and how long to put the job off: about as long as
// the account's oldest running attempt has taken so far, so a job behind a fast receiver comes
// back within milliseconds; behind a slow one that is doubled for each earlier deferral of the job
// (deferrals counts this one), so a backlog behind a hanging receiver is looked at about once a
// minute.
func (s *accountSlots) take(accountID string, deferrals int) (release func(), wait time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	starts := s.running[accountID]
	if len(starts) < s.limit {
		s.running[accountID] = append(starts, now)
		return func() { s.give(accountID, now) }, 0
	}
	d := max(now.Sub(slices.MinFunc(starts, time.Time.Compare)), minDeferral)
	for i := 1; i < deferrals && d >= slowAttempt && d < maxDeferral; i++ {
		d *= 2
	}
	d = min(d, maxDeferral)
	return nil, d/2 + rand.N(d/2+1) //nolint:gosec // jitter needs no cryptographic randomness
}

func (s *accountSlots) give(accountID string, start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	starts := s.running[accountID]
	if i := slices.IndexFunc(starts, start.Equal); i >= 0 {
		starts = slices.Delete(starts, i, i+1)
	}
	if len(starts) == 0 {
		delete(s.running, accountID)
		return
	}
	s.running[accountID] = starts
}
