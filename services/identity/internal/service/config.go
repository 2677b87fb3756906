package service

import (
	"errors"
	"math"
	"runtime/debug"
	"time"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/libs/setting"
)

// Config is identity's configuration.
type Config struct {
	platform.Config
	// Argon2MemoryKiB and Argon2Iterations are the argon2id cost of new password hashes, one lane
	// each: OWASP's first recommended setting (19 MiB, 2 passes, parallelism 1).
	Argon2MemoryKiB  uint32 `env:"IDENTITY_ARGON2_MEMORY_KIB" envDefault:"19456"`
	Argon2Iterations uint32 `env:"IDENTITY_ARGON2_ITERATIONS" envDefault:"2"`
	// HashMemoryBudgetMiB bounds the argon2 memory of the hashes running at once; 0 derives it from
	// the Go memory limit (see hashBudgetKiB).
	HashMemoryBudgetMiB int64 `env:"IDENTITY_HASH_MEMORY_BUDGET_MIB" envDefault:"0"`
	// HashWait is how long a request waits for room in that budget before it is answered 503.
	HashWait time.Duration `env:"IDENTITY_HASH_WAIT" envDefault:"200ms"`
	// KeyReload is how often a replica rereads the signing keys, so a rotation reaches all of them.
	KeyReload time.Duration `env:"IDENTITY_KEY_RELOAD" envDefault:"30s"`
	// Sealing holds the keys that encrypt signing keys at rest (ENCRYPTION_KEYS, ENCRYPTION_KEY_ID).
	Sealing sealbox.Config
}

// Validate checks identity's settings and the shared ones, and reports every one that is wrong.
func (c Config) Validate() error {
	var errs []error
	errs = append(errs, setting.Min("IDENTITY_ARGON2_MEMORY_KIB", c.Argon2MemoryKiB, 8*1024), setting.Min("IDENTITY_ARGON2_ITERATIONS", c.Argon2Iterations, 1))
	if c.KeyReload <= 0 {
		errs = append(errs, errors.New("IDENTITY_KEY_RELOAD must be positive"))
	}
	errs = append(errs, setting.NotNegative("IDENTITY_HASH_MEMORY_BUDGET_MIB", c.HashMemoryBudgetMiB), setting.Positive("IDENTITY_HASH_WAIT", c.HashWait))
	return errors.Join(append(errs, c.Sealing.Validate(), c.Config.Validate())...)
}

// defaultHashBudgetMiB is the hashing budget of a process without a Go memory limit.
const defaultHashBudgetMiB = 64

// hashBudgetKiB is IDENTITY_HASH_MEMORY_BUDGET_MIB when set; otherwise a quarter of the Go memory
// limit (GOMEMLIMIT, which the chart derives from the container limit), since the garbage of
// finished hashes can double their share before the collector runs; otherwise 64 MiB.
func (c Config) hashBudgetKiB() int64 {
	if c.HashMemoryBudgetMiB > 0 {
		return c.HashMemoryBudgetMiB << 10
	}
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		return limit / 4 >> 10
	}
	return defaultHashBudgetMiB << 10
}
