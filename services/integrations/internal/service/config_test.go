package service_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/delivery"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/internal/service"
)

// load reads a Config from the least a config needs to load with extra on top; no I/O happens
// here.
func load(extra map[string]string) (service.Config, error) {
	env := map[string]string{
		"DATABASE_URL": "postgres://x@127.0.0.1/x", "DATABASE_SCHEMA": service.Name,
		"REDIS_URL": "redis://127.0.0.1:6379/0", "JWT_JWKS_URL": "http://127.0.0.1:1/jwks.json",
		"ENCRYPTION_KEYS": "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "ENCRYPTION_KEY_ID": "k1",
	}
	for k, v := range extra {
		env[k] = v
	}
	var cfg service.Config
	err := svc.LoadConfigFrom(&cfg, env)
	return cfg, err
}

// A configuration out of bounds is refused as it loads. So are the settings that let deliveries
// reach private addresses or use plain http, unless the process is explicitly in development
// mode, so a production configuration cannot carry them.
func TestUnsafeAndOutOfBoundsSettingsAreRefused(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		extra map[string]string
		want  string // a setting the error names
	}{
		"private targets":         {map[string]string{"INTEGRATIONS_TARGET_ALLOW_CIDRS": "127.0.0.0/8"}, "INTEGRATIONS_TARGET_ALLOW_CIDRS opens"},
		"plain http":              {map[string]string{"INTEGRATIONS_TARGET_ALLOW_HTTP": "true"}, "INTEGRATIONS_TARGET_ALLOW_HTTP opens"},
		"private, not dev":        {map[string]string{"INTEGRATIONS_TARGET_ALLOW_CIDRS": "10.0.0.0/8", "INTEGRATIONS_DEV_MODE": "false"}, "INTEGRATIONS_DEV_MODE"},
		"timeout":                 {map[string]string{"INTEGRATIONS_DELIVERY_TIMEOUT": "5m"}, "INTEGRATIONS_DELIVERY_TIMEOUT"},
		"no account concurrency":  {map[string]string{"INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY": "0"}, "INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY"},
		"account share over pool": {map[string]string{"INTEGRATIONS_DELIVERY_CONCURRENCY": "8", "INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY": "9"}, "INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY"},
	} {
		_, err := load(tc.extra)
		require.ErrorContains(t, err, tc.want, name)
	}
}

func TestDefaultsAndDevelopmentTargets(t *testing.T) {
	t.Parallel()
	prod, err := load(nil)
	require.NoError(t, err)
	policy, err := prod.TargetPolicy()
	require.NoError(t, err)
	require.Equal(t, domain.TargetPolicy{}, policy, "production: https to public addresses only")
	require.Equal(t, 10, prod.DeliveryAccountConcurrency)

	dev, err := load(map[string]string{
		"INTEGRATIONS_DEV_MODE": "true", "INTEGRATIONS_TARGET_ALLOW_CIDRS": "127.0.0.0/8", "INTEGRATIONS_TARGET_ALLOW_HTTP": "true",
	})
	require.NoError(t, err)
	policy, err = dev.TargetPolicy()
	require.NoError(t, err)
	require.Equal(t, domain.TargetPolicy{AllowHTTP: true, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}, policy)
}

// A dead worker's jobs are past their timeout for RescueMargin before the rescue retries them:
// the stuck-jobs gauge, sampled every DepthEvery, must see them at least once in that span.
func TestStuckJobsAreSampledBeforeTheRescue(t *testing.T) {
	require.GreaterOrEqual(t, app.RescueMargin, 2*delivery.DepthEvery)
}

// Each setting out of bounds is named on a line of its own, with the value it was given.
func TestEachWrongSettingIsNamedWithItsValue(t *testing.T) {
	t.Parallel()
	_, err := load(map[string]string{"INTEGRATIONS_DELIVERY_POLL_INTERVAL": "0s", "INTEGRATIONS_RETRY_CAP": "1s"})
	require.ErrorContains(t, err, "INTEGRATIONS_DELIVERY_POLL_INTERVAL must be positive, not 0s")
	require.ErrorContains(t, err, "INTEGRATIONS_RETRY_CAP (1s) must be at least INTEGRATIONS_RETRY_BASE (30s)")
	require.NotContains(t, err.Error(), "INTEGRATIONS_DELIVERY_TIMEOUT", "a setting in bounds is not named")
}
