package adapters

import (
	"github.com/alexedwards/argon2id"
)

// Argon2Hasher hashes passwords with argon2id (RFC 9106); the parameters are encoded in each
// hash, so raising them later does not break stored passwords.
type Argon2Hasher struct {
	params *argon2id.Params
}

// NewArgon2Hasher uses memoryKiB of memory and the given iterations per hash.
func NewArgon2Hasher(memoryKiB uint32, iterations uint32) *Argon2Hasher {
	p := *argon2id.DefaultParams
	p.Memory, p.Iterations = memoryKiB, iterations
	return &Argon2Hasher{params: &p}
}

func (h *Argon2Hasher) Hash(password string) (string, error) {
	return argon2id.CreateHash(password, h.params)
}

func (h *Argon2Hasher) Verify(password, hash string) (bool, error) {
	return argon2id.ComparePasswordAndHash(password, hash)
}
