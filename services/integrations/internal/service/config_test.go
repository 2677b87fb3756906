package service_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/internal/service"
)

// baseEnv is the least a config needs to load; no I/O happens here.
func baseEnv(extra map[string]string) map[string]string {
	env := map[string]string{
		"DATABASE_URL": "postgres://x@127.0.0.1/x", "DATABASE_SCHEMA": service.Name,
		"REDIS_URL": "redis://127.0.0.1:6379/0", "JWT_JWKS_URL": "http://127.0.0.1:1/jwks.json",
		"ENCRYPTION_KEYS": "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "ENCRYPTION_KEY_ID": "k1",
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// The settings that let deliveries reach private addresses or use plain http are refused unless
// the process is explicitly in development mode, so a production configuration cannot carry them.
func TestPrivateTargetsNeedDevelopmentMode(t *testing.T) {
	t.Parallel()
	for _, extra := range []map[string]string{
		{"INTEGRATIONS_TARGET_ALLOW_CIDRS": "127.0.0.0/8"},
		{"INTEGRATIONS_TARGET_ALLOW_HTTP": "true"},
		{"INTEGRATIONS_TARGET_ALLOW_CIDRS": "10.0.0.0/8", "INTEGRATIONS_DEV_MODE": "false"},
	} {
		var cfg service.Config
		err := svc.LoadConfigFrom(&cfg, baseEnv(extra))
		require.ErrorContains(t, err, "INTEGRATIONS_DEV_MODE", "%v", extra)
	}

	var prod service.Config
	require.NoError(t, svc.LoadConfigFrom(&prod, baseEnv(nil)))
	policy, err := prod.TargetPolicy()
	require.NoError(t, err)
	require.Equal(t, domain.TargetPolicy{}, policy, "production: https to public addresses only")

	var dev service.Config
	require.NoError(t, svc.LoadConfigFrom(&dev, baseEnv(map[string]string{
		"INTEGRATIONS_DEV_MODE": "true", "INTEGRATIONS_TARGET_ALLOW_CIDRS": "127.0.0.0/8", "INTEGRATIONS_TARGET_ALLOW_HTTP": "true",
	})))
	policy, err = dev.TargetPolicy()
	require.NoError(t, err)
	require.Equal(t, domain.TargetPolicy{AllowHTTP: true, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}, policy)
}

func TestDeliveryBoundsAreChecked(t *testing.T) {
	t.Parallel()
	for _, extra := range []map[string]string{
		{"INTEGRATIONS_DELIVERY_TIMEOUT": "5m"},
		{"INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY": "0"},
		{"INTEGRATIONS_DELIVERY_CONCURRENCY": "8", "INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY": "9"},
	} {
		var cfg service.Config
		require.Error(t, svc.LoadConfigFrom(&cfg, baseEnv(extra)), "%v", extra)
	}
	var cfg service.Config
	require.NoError(t, svc.LoadConfigFrom(&cfg, baseEnv(nil)))
	require.Equal(t, 10, cfg.DeliveryAccountConcurrency)
}
