// Package password hashes passwords with argon2id, within a memory budget shared by the hashes
// running at once.
package password

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/alexedwards/argon2id"
	"golang.org/x/crypto/argon2"
	"golang.org/x/sync/semaphore"

	"github.com/bizassist/bizassist/services/identity/internal/app"
)

// Budget bounds the password hashes in flight in this process: their argon2 memory, so a burst of
// sign-ins cannot hold more than the budget, and their number to the cores the process may use,
// since argon2 with one lane keeps a core busy and a hash more than there are cores only makes
// every hash slower. A request that finds no room within the wait is refused instead of queueing.
type Budget struct {
	sem     *semaphore.Weighted
	cores   *semaphore.Weighted
	sizeKiB int64
	ncores  int64
	wait    time.Duration
}

// NewBudget allows sizeKiB of argon2 memory and cores hashes at once, and waits at most wait for
// room.
func NewBudget(sizeKiB, cores int64, wait time.Duration) *Budget {
	cores = max(cores, 1)
	return &Budget{sem: semaphore.NewWeighted(sizeKiB), cores: semaphore.NewWeighted(cores), sizeKiB: sizeKiB, ncores: cores, wait: wait}
}

// Acquire takes memoryKiB of the budget (all of it when a hash needs more: such a hash runs alone)
// and a core, and returns the function that gives them back, or app.ErrHashingBusy after the
// wait.
func (b *Budget) Acquire(ctx context.Context, memoryKiB uint32) (release func(), err error) {
	n := min(int64(memoryKiB), b.sizeKiB)
	wctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	if err := b.cores.Acquire(wctx, 1); err != nil {
		return nil, busy(ctx)
	}
	if err := b.sem.Acquire(wctx, n); err != nil {
		b.cores.Release(1)
		return nil, busy(ctx)
	}
	return func() { b.sem.Release(n); b.cores.Release(1) }, nil
}

// busy is the caller's own end when it left, otherwise app.ErrHashingBusy.
func busy(ctx context.Context) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return app.ErrHashingBusy
}

// SizeKiB is the whole memory budget.
func (b *Budget) SizeKiB() int64 { return b.sizeKiB }

// Slots is how many hashes of memoryKiB may run at once (at least one).
func (b *Budget) Slots(memoryKiB uint32) int64 {
	return min(max(b.sizeKiB/int64(max(memoryKiB, 1)), 1), b.ncores)
}

// Hasher hashes passwords with argon2id (RFC 9106) inside a Budget. The parameters
// are encoded in each hash (PHC string format), so hashes made with older parameters still
// verify, and Outdated finds them for rehashing.
type Hasher struct {
	params argon2id.Params
	budget *Budget
}

// NewHasher makes hashes with memoryKiB of memory, the given passes and one lane.
func NewHasher(memoryKiB, iterations uint32, budget *Budget) *Hasher {
	return &Hasher{budget: budget, params: argon2id.Params{
		Memory: memoryKiB, Iterations: iterations, Parallelism: 1, SaltLength: 16, KeyLength: 32,
	}}
}

func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	release, err := h.budget.Acquire(ctx, h.params.Memory)
	if err != nil {
		return "", err
	}
	defer release()
	return argon2id.CreateHash(password, &h.params)
}

func (h *Hasher) Verify(ctx context.Context, password, hash string) (bool, error) {
	params, _, _, err := argon2id.DecodeHash(hash)
	if err != nil {
		return false, fmt.Errorf("stored password hash: %w", err)
	}
	release, err := h.budget.Acquire(ctx, params.Memory)
	if err != nil {
		return false, err
	}
	defer release()
	return argon2id.ComparePasswordAndHash(password, hash)
}

// Unmatchable encodes the parameters new hashes get with a random salt and a random key instead
// of a derived one, so checking a password against it costs what checking against a real hash
// costs, and no password matches it. Nothing is hashed: a hash made at start-up held its argon2
// memory in the idle process until the runtime's next collection.
func (h *Hasher) Unmatchable() (string, error) {
	salt, key := make([]byte, h.params.SaltLength), make([]byte, h.params.KeyLength)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version,
		h.params.Memory, h.params.Iterations, h.params.Parallelism, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

func (h *Hasher) Outdated(hash string) bool {
	params, _, _, err := argon2id.DecodeHash(hash)
	return err != nil || *params != h.params
}

// MemoryKiB is the argon2 memory of one new hash.
func (h *Hasher) MemoryKiB() uint32 { return h.params.Memory }
