package ratelimit_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/ratelimit"
)

func TestConfigFromEnvironment(t *testing.T) {
	t.Parallel()
	var cfg ratelimit.Config
	require.NoError(t, env.ParseWithOptions(&cfg, env.Options{Environment: map[string]string{
		"RATELIMIT_EXEMPT_CIDRS": "10.0.0.0/8, 192.0.2.7",
	}}))
	require.NoError(t, cfg.Validate())
	require.Equal(t, []string{"127.0.0.1/32", "::1/128"}, cfg.TrustedProxies)
	require.Equal(t, "rl", cfg.KeyPrefix)
	require.Equal(t, 50*time.Millisecond, cfg.Timeout)

	exempt, err := ratelimit.ParsePrefixes("RATELIMIT_EXEMPT_CIDRS", cfg.ExemptCIDRs)
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32")}, exempt)
}

func TestConfigValidateNamesTheBadValue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  ratelimit.Config
		want string
	}{
		{"proxy not a cidr", ratelimit.Config{TrustedProxies: []string{"127.0.0.1/32", "10.0.0/8"}}, `TRUSTED_PROXIES: "10.0.0/8"`},
		{"exempt bits out of range", ratelimit.Config{ExemptCIDRs: []string{"10.0.0.0/33"}}, `RATELIMIT_EXEMPT_CIDRS: "10.0.0.0/33"`},
		{"hostname", ratelimit.Config{TrustedProxies: []string{"ingress.local"}}, `"ingress.local"`},
		{"negative timeout", ratelimit.Config{Timeout: -time.Second}, "RATELIMIT_REDIS_TIMEOUT"},
		{"negative fallback replicas", ratelimit.Config{FallbackReplicas: -1}, "RATELIMIT_FALLBACK_REPLICAS"},
		{"prefix with space", ratelimit.Config{KeyPrefix: "r l"}, "RATELIMIT_PREFIX"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.cfg.Validate()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	require.NoError(t, ratelimit.Config{}.Validate(), "a zero config takes the defaults")
}
