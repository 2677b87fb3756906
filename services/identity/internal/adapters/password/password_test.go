package password_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/alexedwards/argon2id"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/identity/internal/adapters/password"
	"github.com/bizassist/bizassist/services/identity/internal/app"
)

const memoryKiB = 19 * 1024

func newHasher() *password.Hasher {
	return password.NewHasher(memoryKiB, 2, password.NewBudget(4*memoryKiB, 4, time.Second))
}

func TestUnmatchableHasTheParametersOfANewHashAndMatchesNoPassword(t *testing.T) {
	h := newHasher()
	dummy, err := h.Unmatchable()
	require.NoError(t, err)
	params, _, _, err := argon2id.DecodeHash(dummy)
	require.NoError(t, err)
	require.EqualValues(t, memoryKiB, params.Memory, "checking it costs the memory of a new hash")
	require.EqualValues(t, 2, params.Iterations)
	require.False(t, h.Outdated(dummy))
	for _, p := range []string{"", "password", "not-a-real-password-but-the-same-cost"} {
		ok, err := h.Verify(context.Background(), p, dummy)
		require.NoError(t, err)
		require.False(t, ok, "%q matched", p)
	}
	again, err := h.Unmatchable()
	require.NoError(t, err)
	require.NotEqual(t, dummy, again, "salt and key are random")
}

// identity's idle process held 19 MiB more than it needed: the dummy hash for unknown emails was
// made with argon2 at start-up, and its memory stayed in the heap until the next collection.
func TestUnmatchableDoesNotHash(t *testing.T) {
	h := newHasher()
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	hashed := allocated(func() { _, err := h.Hash(context.Background(), "password"); require.NoError(t, err) })
	dummy := allocated(func() { _, err := h.Unmatchable(); require.NoError(t, err) })
	require.GreaterOrEqual(t, hashed, uint64(memoryKiB)<<10, "a hash allocates its argon2 memory")
	require.Less(t, dummy, uint64(64<<10), "the dummy allocates next to nothing")
}

// A hash more than the process has cores would slow every hash in flight: with room for four in
// memory and one core, a second hash waits for the first and is refused busy after the wait, and
// the core is free again once the first is done.
func TestTheBudgetHoldsAsManyHashesAsCores(t *testing.T) {
	b := password.NewBudget(4*memoryKiB, 1, 20*time.Millisecond)
	require.EqualValues(t, 1, b.Slots(memoryKiB))
	release, err := b.Acquire(context.Background(), memoryKiB)
	require.NoError(t, err)
	_, err = b.Acquire(context.Background(), memoryKiB)
	require.ErrorIs(t, err, app.ErrHashingBusy)
	release()
	release, err = b.Acquire(context.Background(), memoryKiB)
	require.NoError(t, err)
	release()
}
