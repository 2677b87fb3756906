package service_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/assistant/internal/service"
)

// A process refusing to start names every wrong setting on its own line, with its value.
func TestEachWrongSettingIsNamedOnItsOwn(t *testing.T) {
	t.Parallel()
	var cfg service.Config
	err := svc.LoadConfigFrom(&cfg, map[string]string{
		"DATABASE_URL": "postgres://x@127.0.0.1/x", "REDIS_URL": "redis://127.0.0.1:6379/0",
		"DATABASE_SCHEMA": service.Name, "JWT_JWKS_URL": "http://127.0.0.1:1/jwks.json", "UPGRADE_URL": "https://example.com/upgrade",
		"LEADS_URL": "http://127.0.0.1:2", "ANALYTICS_URL": "http://127.0.0.1:3",
		"ASSISTANT_TOOL_TIMEOUT": "0s", "ASSISTANT_HISTORY_TOKENS": "-1",
	})
	for _, want := range []string{"ASSISTANT_TOOL_TIMEOUT must be positive, not 0s", "ASSISTANT_HISTORY_TOKENS must not be negative, not -1"} {
		require.ErrorContains(t, err, want)
	}
}
