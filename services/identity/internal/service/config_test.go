package service_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/identity/internal/service"
)

// A process refusing to start names every wrong setting on its own line, with its value.
func TestEachWrongSettingIsNamedOnItsOwn(t *testing.T) {
	t.Parallel()
	var cfg service.Config
	err := svc.LoadConfigFrom(&cfg, map[string]string{
		"DATABASE_URL": "postgres://x@127.0.0.1/x", "DATABASE_SCHEMA": service.Name, "REDIS_URL": "redis://127.0.0.1:6379/0",
		"JWT_JWKS_URL":    "http://127.0.0.1:1/jwks.json",
		"ENCRYPTION_KEYS": "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "ENCRYPTION_KEY_ID": "k1",
		"IDENTITY_ARGON2_MEMORY_KIB": "4096", "IDENTITY_ARGON2_ITERATIONS": "0", "IDENTITY_HASH_WAIT": "0s",
	})
	for _, want := range []string{"IDENTITY_ARGON2_MEMORY_KIB must be at least 8192, not 4096",
		"IDENTITY_ARGON2_ITERATIONS must be at least 1, not 0", "IDENTITY_HASH_WAIT must be positive, not 0s"} {
		require.ErrorContains(t, err, want)
	}
}
