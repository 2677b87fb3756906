package ports

import (
	"context"
	"errors"
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
	// slotWait is how long a job waits in the worker for a slot of its account while that
	// account's attempts are fast. A snooze is a job-row update, and River makes a snoozed job
	// available again only on its scheduler's next pass (seconds), so a burst of one account's
	// jobs behind a fast receiver is better served by waiting milliseconds here.
	slotWait = 200 * time.Millisecond
)

// AccountSlots bounds how many deliveries of one account run at once in this process, so a
// receiver that hangs until the timeout holds its own account's share of the workers and no more.
// The queued jobs' workers and the dispatcher share one.
type AccountSlots = accountSlots

// NewAccountSlots gives each account limit deliveries at once.
func NewAccountSlots(limit int) (*AccountSlots, error) {
	if limit < 1 {
		return nil, errors.New("delivery: an account's share of the workers must be at least 1")
	}
	return newAccountSlots(limit, time.Now), nil
}

type accountSlots struct {
	limit   int
	now     func() time.Time
	wait    time.Duration // slotWait
	mu      sync.Mutex
	running map[string][]time.Time   // start of each running attempt, by account
	freed   map[string]chan struct{} // closed when one of the account's slots frees
}

func newAccountSlots(limit int, now func() time.Time) *accountSlots {
	return &accountSlots{limit: limit, now: now, wait: slotWait, running: map[string][]time.Time{}, freed: map[string]chan struct{}{}}
}

// acquire is take, but while the account's running attempts are fast it first waits up to
// s.wait for one of them to finish, so that only jobs behind a slow receiver are put off.
func (s *accountSlots) acquire(ctx context.Context, accountID string, deferrals int) (release func(), wait time.Duration) {
	timer := time.NewTimer(s.wait)
	defer timer.Stop()
	for {
		release, wait := s.take(accountID, deferrals)
		if release != nil {
			return release, 0
		}
		freed, fast := s.waitable(accountID)
		if !fast {
			return nil, wait
		}
		select {
		case <-freed:
		case <-timer.C:
			return s.take(accountID, deferrals)
		case <-ctx.Done():
			return nil, wait
		}
	}
}

var closedChan = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// waitable returns the channel closed when the account's next slot frees, and whether its
// oldest running attempt is younger than slowAttempt (worth waiting for).
func (s *accountSlots) waitable(accountID string) (<-chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	starts := s.running[accountID]
	if len(starts) < s.limit {
		return closedChan, true // freed since take: try again at once
	}
	if s.now().Sub(slices.MinFunc(starts, time.Time.Compare)) >= slowAttempt {
		return nil, false
	}
	ch, ok := s.freed[accountID]
	if !ok {
		ch = make(chan struct{})
		s.freed[accountID] = ch
	}
	return ch, true
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
	if ch, ok := s.freed[accountID]; ok {
		close(ch) // every waiter tries again; those that lose wait for the next one
		delete(s.freed, accountID)
	}
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
