package app

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/clocktest"
)

// newSlots is limit slots an account on a test clock.
func newSlots(limit int) (*AccountSlots, *clocktest.Clock) {
	clock := clocktest.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	return newAccountSlots(limit, clock.Now), clock
}

// held is the release of a slot of acc_a that must be free.
func held(t *testing.T, slots *AccountSlots) func() {
	t.Helper()
	release, _ := slots.acquire(context.Background(), "acc_a", "", 1)
	require.NotNil(t, release)
	return release
}

func TestAnAccountGetsItsShareAndOthersKeepTheirs(t *testing.T) {
	t.Parallel()
	slots, _ := newSlots(2)
	first, _ := slots.take("acc_a", "sub_1", 1)
	second, _ := slots.take("acc_a", "sub_2", 1)
	require.NotNil(t, first)
	require.NotNil(t, second)
	third, wait := slots.take("acc_a", "sub_3", 1)
	require.Nil(t, third, "the account's share is in use")
	require.GreaterOrEqual(t, wait, minDeferral/2)
	other, _ := slots.take("acc_b", "", 1)
	require.NotNil(t, other, "another account is not held up")

	first()
	again, _ := slots.take("acc_a", "sub_3", 1)
	require.NotNil(t, again, "a finished attempt frees its slot")
}

// Behind a receiver that has held the slots for seconds, a job waits seconds, and longer each
// time it is put off again, up to the cap.
func TestTheWaitFollowsHowLongTheSlotsHaveBeenHeld(t *testing.T) {
	t.Parallel()
	slots, clock := newSlots(1)
	release, _ := slots.take("acc_a", "", 1)
	require.NotNil(t, release)

	_, wait := slots.take("acc_a", "", 5)
	require.LessOrEqual(t, wait, minDeferral, "a slot held by a fast attempt frees any moment, however often the job waited")
	clock.Advance(10 * time.Second)
	_, wait = slots.take("acc_a", "", 1)
	require.GreaterOrEqual(t, wait, 5*time.Second)
	require.LessOrEqual(t, wait, 10*time.Second)
	_, wait = slots.take("acc_a", "", 2)
	require.GreaterOrEqual(t, wait, 10*time.Second, "behind a slow receiver each deferral waits twice as long")
	require.LessOrEqual(t, wait, 20*time.Second)
	_, wait = slots.take("acc_a", "", 10)
	require.GreaterOrEqual(t, wait, maxDeferral/2, "up to the cap")
	require.LessOrEqual(t, wait, maxDeferral)
}

// Behind a fast receiver a job waits in the worker for its account's next free slot instead of
// being put off (a job-row write, and seconds until River makes it available again).
func TestAJobBehindAFastReceiverWaitsForTheNextSlot(t *testing.T) {
	t.Parallel()
	slots, _ := newSlots(1)
	slots.wait = time.Minute // the release below, not the bound, ends the wait
	release := held(t, slots)

	got := make(chan func(), 1)
	go func() {
		next, wait := slots.acquire(context.Background(), "acc_a", "", 1)
		require.Zero(t, wait)
		got <- next
	}()
	select {
	case <-got:
		t.Fatal("took a slot while the account's only one was in use")
	case <-time.After(50 * time.Millisecond):
	}
	release()
	require.NotNil(t, <-got, "the waiting job got the freed slot")
}

func TestAJobBehindASlowReceiverIsPutOffAtOnce(t *testing.T) {
	t.Parallel()
	slots, clock := newSlots(1)
	slots.wait = time.Hour // a wait would hang the test
	held(t, slots)
	clock.Advance(slowAttempt)
	next, wait := slots.acquire(context.Background(), "acc_a", "", 1)
	require.Nil(t, next)
	require.GreaterOrEqual(t, wait, slowAttempt/2)
}

func TestTheWaitForASlotIsBounded(t *testing.T) {
	t.Parallel()
	slots, _ := newSlots(1)
	slots.wait = 20 * time.Millisecond
	held(t, slots)
	next, wait := slots.acquire(context.Background(), "acc_a", "", 1)
	require.Nil(t, next, "the slot stayed in use for the whole wait")
	require.Positive(t, wait)
}

// Issue 31: one failing subscription took every slot of its account and starved the account's
// healthy ones. A subscription holds at most half the account's slots (rounded up).
func TestOneSubscriptionHoldsAtMostHalfItsAccountsSlots(t *testing.T) {
	t.Parallel()
	slots, _ := newSlots(10)
	var held int
	for range 10 {
		if release, _ := slots.take("acc_a", "sub_hang", 1); release != nil {
			held++
		}
	}
	require.Equal(t, 5, held, "half the account's slots")
	for i := range 5 {
		release, _ := slots.take("acc_a", "sub_ok", 1)
		require.NotNil(t, release, "the healthy subscription's attempt %d", i)
	}
	release, _ := slots.take("acc_a", "sub_other", 1)
	require.Nil(t, release, "the account's share is still bounded")
}

// Slow subscriptions (an attempt running for seconds, or a last attempt that did) hold at most
// half their account's slots together, however many of them fail.
func TestSlowSubscriptionsTogetherHoldAtMostHalf(t *testing.T) {
	t.Parallel()
	slots, clock := newSlots(4)
	hangA, _ := slots.take("acc_a", "sub_a", 1)
	hangB, _ := slots.take("acc_a", "sub_b", 1)
	require.NotNil(t, hangA)
	require.NotNil(t, hangB)
	clock.Advance(2 * slowAttempt) // both hang
	more, wait := slots.take("acc_a", "sub_a", 1)
	require.Nil(t, more, "two slow subscriptions hold half of four slots")
	require.GreaterOrEqual(t, wait, slowAttempt, "behind a slow attempt the job is put off for seconds")
	more, _ = slots.take("acc_a", "sub_c", 1)
	require.NotNil(t, more, "a subscription with no slow history is served")
	more()

	// A slow attempt that ended leaves its subscription slow for its next attempts.
	hangA()
	again, _ := slots.take("acc_a", "sub_c", 1)
	require.NotNil(t, again)
	retry, _ := slots.take("acc_a", "sub_a", 1)
	require.NotNil(t, retry, "one slow slot freed")
	clock.Advance(time.Millisecond)
	retry() // a fast attempt ends the subscription's slowness
	fast, _ := slots.take("acc_a", "sub_a", 1)
	require.NotNil(t, fast)
	fast2, _ := slots.take("acc_a", "sub_a", 1)
	require.NotNil(t, fast2, "a healthy subscription has half the slots")
	full, _ := slots.take("acc_a", "sub_d", 1)
	require.Nil(t, full, "four slots are in use")
	_, ok := slots.waitable("acc_a", "sub_d")
	require.False(t, ok, "not worth waiting: the oldest attempt in the way hangs")
}
