package domain_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

func TestPermitRefusesNonPublicAddresses(t *testing.T) {
	t.Parallel()
	var policy domain.TargetPolicy
	for _, a := range []string{
		"127.0.0.1", "127.8.9.10", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254",
		"100.64.0.1", "0.0.0.0", "255.255.255.255", "224.0.0.1", "198.18.0.1",
		"::1", "::", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "fe80::1", "fc00::1",
		"fd00:ec2::254", "ff02::1", "64:ff9b::a00:1", "2002:7f00:1::1",
	} {
		require.ErrorIs(t, policy.Permit(netip.MustParseAddr(a)), domain.ErrForbiddenAddress, a)
	}
}

func TestPermitAcceptsPublicAddresses(t *testing.T) {
	t.Parallel()
	var policy domain.TargetPolicy
	for _, a := range []string{"93.184.215.14", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"} {
		require.NoError(t, policy.Permit(netip.MustParseAddr(a)), a)
	}
}

func TestAllowListOpensOnlyItsRanges(t *testing.T) {
	t.Parallel()
	policy := domain.TargetPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	require.NoError(t, policy.Permit(netip.MustParseAddr("127.0.0.1")))
	require.NoError(t, policy.Permit(netip.MustParseAddr("::ffff:127.0.0.1")), "mapped loopback is loopback")
	require.ErrorIs(t, policy.Permit(netip.MustParseAddr("10.0.0.1")), domain.ErrForbiddenAddress)
	require.ErrorIs(t, policy.Permit(netip.MustParseAddr("169.254.169.254")), domain.ErrForbiddenAddress)
	require.ErrorIs(t, policy.Permit(netip.MustParseAddr("::1")), domain.ErrForbiddenAddress)
}
