package app

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
//
// Within an account's share each subscription has a bounded part, so that one failing receiver (a
// host that does not resolve, or hangs until the timeout) cannot take every slot of its account
// and starve the account's healthy subscriptions: a subscription holds at most half the
// account's slots (rounded up), and the account's slow subscriptions together at most half
// (rounded down, at least one). A subscription is slow while one of its attempts has run longer
// than slowAttempt, or when its last finished attempt did (until one finishes fast, or
// slowMemory has passed). With a share of one slot there is nothing to divide.
type AccountSlots struct {
	limit int
	// subShare is the most slots one subscription holds; slowShare the most the account's slow
	// subscriptions hold together.
	subShare, slowShare int
	now                 func() time.Time
	wait                time.Duration // slotWait
	mu                  sync.Mutex
	running             map[string][]running     // the running attempts, by account
	slowEnded           map[subKey]time.Time     // when a subscription's last attempt ended slow
	freed               map[string]chan struct{} // closed when one of the account's slots frees
}

// NewAccountSlots gives each account limit deliveries at once.
func NewAccountSlots(limit int) (*AccountSlots, error) {
	if limit < 1 {
		return nil, errors.New("delivery: an account's share of the workers must be at least 1")
	}
	return newAccountSlots(limit, time.Now), nil
}

// slowMemory is how long a subscription whose last attempt was slow stays slow without a new
// attempt finishing: longer than the longest deferral, so its retries still find it slow.
const slowMemory = 10 * time.Minute

// running is one attempt holding a slot: whose, and since when.
type running struct {
	sub   string
	start time.Time
}

type subKey struct{ account, sub string }

func newAccountSlots(limit int, now func() time.Time) *AccountSlots {
	return &AccountSlots{limit: limit, subShare: (limit + 1) / 2, slowShare: max(1, limit/2), now: now, wait: slotWait,
		running: map[string][]running{}, slowEnded: map[subKey]time.Time{}, freed: map[string]chan struct{}{}}
}

// acquire is take, but while the attempts in its way are fast it first waits up to s.wait for
// one of them to finish, so that only jobs behind a slow receiver are put off. subscriptionID
// may be empty (a job queued before jobs carried it): such jobs share one part of the account's.
func (s *AccountSlots) acquire(ctx context.Context, accountID, subscriptionID string, deferrals int) (release func(), wait time.Duration) {
	timer := time.NewTimer(s.wait)
	defer timer.Stop()
	for {
		release, wait := s.take(accountID, subscriptionID, deferrals)
		if release != nil {
			return release, 0
		}
		freed, fast := s.waitable(accountID, subscriptionID)
		if !fast {
			return nil, wait
		}
		select {
		case <-freed:
		case <-timer.C:
			return s.take(accountID, subscriptionID, deferrals)
		case <-ctx.Done():
			return nil, wait
		}
	}
}

var closedChan = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// blockers returns the start times of the running attempts that keep subscriptionID from a slot
// of its account (the account's, its own, or the slow subscriptions'), none when it may take one.
// s.mu is held.
func (s *AccountSlots) blockers(accountID, subscriptionID string, now time.Time) []time.Time {
	attempts := s.running[accountID]
	if len(attempts) >= s.limit {
		return starts(attempts, func(running) bool { return true })
	}
	if mine := starts(attempts, func(a running) bool { return a.sub == subscriptionID }); len(mine) >= s.subShare {
		return mine
	}
	if !s.slow(accountID, subscriptionID, now) {
		return nil
	}
	if slow := starts(attempts, func(a running) bool { return s.slow(accountID, a.sub, now) }); len(slow) >= s.slowShare {
		return slow
	}
	return nil
}

// slow reports whether the subscription is slow (AccountSlots). s.mu is held.
func (s *AccountSlots) slow(accountID, subscriptionID string, now time.Time) bool {
	if ended, ok := s.slowEnded[subKey{accountID, subscriptionID}]; ok && now.Sub(ended) < slowMemory {
		return true
	}
	for _, a := range s.running[accountID] {
		if a.sub == subscriptionID && now.Sub(a.start) >= slowAttempt {
			return true
		}
	}
	return false
}

func starts(attempts []running, keep func(running) bool) []time.Time {
	var out []time.Time
	for _, a := range attempts {
		if keep(a) {
			out = append(out, a.start)
		}
	}
	return out
}

// waitable returns the channel closed when the account's next slot frees, and whether the
// oldest attempt in the way is younger than slowAttempt (worth waiting for).
func (s *AccountSlots) waitable(accountID, subscriptionID string) (<-chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	blockers := s.blockers(accountID, subscriptionID, now)
	if len(blockers) == 0 {
		return closedChan, true // freed since take: try again at once
	}
	if now.Sub(slices.MinFunc(blockers, time.Time.Compare)) >= slowAttempt {
		return nil, false
	}
	ch, ok := s.freed[accountID]
	if !ok {
		ch = make(chan struct{})
		s.freed[accountID] = ch
	}
	return ch, true
}

// take reserves one of the account's slots for the subscription and returns the function that
// gives it back. When the account's share, or the subscription's part of it, is in use it
// returns nil and how long to put the job off: about as long as the oldest attempt in the way has
// taken so far, so a job behind a fast receiver comes back within milliseconds; behind a slow one
// that is doubled for each earlier deferral of the job (deferrals counts this one), so a backlog
// behind a hanging receiver is looked at about once a minute.
func (s *AccountSlots) take(accountID, subscriptionID string, deferrals int) (release func(), wait time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	blockers := s.blockers(accountID, subscriptionID, now)
	if len(blockers) == 0 {
		s.running[accountID] = append(s.running[accountID], running{subscriptionID, now})
		return func() { s.give(accountID, subscriptionID, now) }, 0
	}
	d := max(now.Sub(slices.MinFunc(blockers, time.Time.Compare)), minDeferral)
	for i := 1; i < deferrals && d >= slowAttempt && d < maxDeferral; i++ {
		d *= 2
	}
	d = min(d, maxDeferral)
	return nil, d/2 + rand.N(d/2+1) //nolint:gosec // jitter needs no cryptographic randomness
}

func (s *AccountSlots) give(accountID, subscriptionID string, start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch, ok := s.freed[accountID]; ok {
		close(ch) // every waiter tries again; those that lose wait for the next one
		delete(s.freed, accountID)
	}
	now := s.now()
	key := subKey{accountID, subscriptionID}
	if now.Sub(start) >= slowAttempt {
		s.slowEnded[key] = now
		if len(s.slowEnded) > maxSlowRemembered {
			for k, ended := range s.slowEnded {
				if now.Sub(ended) >= slowMemory {
					delete(s.slowEnded, k)
				}
			}
		}
	} else {
		delete(s.slowEnded, key)
	}
	attempts := s.running[accountID]
	if i := slices.IndexFunc(attempts, func(a running) bool { return a.sub == subscriptionID && a.start.Equal(start) }); i >= 0 {
		attempts = slices.Delete(attempts, i, i+1)
	}
	if len(attempts) == 0 {
		delete(s.running, accountID)
		return
	}
	s.running[accountID] = attempts
}

// maxSlowRemembered is how many slow subscriptions are remembered before the expired ones are
// forgotten (a subscription deleted while slow would otherwise stay).
const maxSlowRemembered = 1024
