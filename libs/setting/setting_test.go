package setting_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/setting"
)

func TestEachSettingIsNamedWithItsValue(t *testing.T) {
	t.Parallel()
	require.NoError(t, setting.Positive("A", 1))
	require.NoError(t, setting.NotNegative("A", 0))
	require.NoError(t, setting.AtLeast("CAP", time.Hour, "BASE", time.Minute))
	require.NoError(t, setting.Min("KIB", uint32(8192), 8192))
	require.EqualError(t, setting.Min("IDENTITY_ARGON2_MEMORY_KIB", uint32(4096), 8192), "IDENTITY_ARGON2_MEMORY_KIB must be at least 8192, not 4096")
	err := errors.Join(
		setting.Positive("EVENTS_RELAY_POLL_INTERVAL", time.Duration(0)),
		setting.NotNegative("EVENTS_RELAY_BATCH_SIZE", -2),
		setting.AtLeast("INTEGRATIONS_RETRY_CAP", time.Second, "INTEGRATIONS_RETRY_BASE", 30*time.Second),
	)
	require.EqualError(t, err, "EVENTS_RELAY_POLL_INTERVAL must be positive, not 0s\n"+
		"EVENTS_RELAY_BATCH_SIZE must not be negative, not -2\n"+
		"INTEGRATIONS_RETRY_CAP (1s) must be at least INTEGRATIONS_RETRY_BASE (30s)")
}
