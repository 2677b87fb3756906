package domain_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// TestPermitJudgesEveryAddressByWhereItLeads covers plain addresses and every IPv6 form that
// carries an IPv4 address: each is judged as the IPv4 address it stands for.
func TestPermitJudgesEveryAddressByWhereItLeads(t *testing.T) {
	t.Parallel()
	cases := []struct {
		form, addr string
		permitted  bool
	}{
		// Plain IPv4.
		{"v4 loopback", "127.0.0.1", false},
		{"v4 loopback, not .1", "127.8.9.10", false},
		{"RFC 1918 10/8", "10.0.0.1", false},
		{"RFC 1918 172.16/12", "172.16.5.4", false},
		{"RFC 1918 192.168/16", "192.168.1.1", false},
		{"metadata", "169.254.169.254", false},
		{"link-local", "169.254.1.1", false},
		{"carrier-grade NAT", "100.64.0.1", false},
		{"this network", "0.0.0.0", false},
		{"this network, not zero", "0.1.2.3", false},
		{"broadcast", "255.255.255.255", false},
		{"reserved 240/4", "240.0.0.1", false},
		{"multicast", "224.0.0.1", false},
		{"benchmarking", "198.18.0.1", false},
		{"TEST-NET-1", "192.0.2.1", false},
		{"TEST-NET-2", "198.51.100.7", false},
		{"TEST-NET-3", "203.0.113.9", false},
		{"IETF protocol assignments", "192.0.0.8", false},
		{"6to4 relay anycast", "192.88.99.1", false},
		{"public v4", "8.8.8.8", true},
		{"public v4 (example.com)", "93.184.215.14", true},

		// Plain IPv6.
		{"v6 loopback", "::1", false},
		{"v6 unspecified", "::", false},
		{"v6 link-local", "fe80::1", false},
		{"v6 link-local with a zone", "fe80::1%eth0", false},
		{"unique local", "fc00::1", false},
		{"unique local (AWS metadata)", "fd00:ec2::254", false},
		{"site-local", "fec0::1", false},
		{"v6 multicast", "ff02::1", false},
		{"discard", "100::1", false},
		{"documentation", "2001:db8::1", false},
		{"Teredo (obfuscated v4 inside)", "2001:0:4136:e378:8000:63bf:f5ff:fffe", false},
		{"ORCHIDv2", "2001:20::1", false},
		{"public v6", "2606:4700::1111", true},

		// IPv4-mapped ::ffff:0:0/96.
		{"mapped loopback", "::ffff:127.0.0.1", false},
		{"mapped loopback, hex", "::ffff:7f00:1", false},
		{"mapped private", "::ffff:10.0.0.1", false},
		{"mapped metadata", "::ffff:169.254.169.254", false},
		{"mapped CGNAT", "::ffff:100.64.0.1", false},
		{"mapped public", "::ffff:8.8.8.8", true},

		// IPv4-compatible ::/96 (deprecated, still parsed and routed by some stacks).
		{"compatible loopback", "::7f00:1", false},
		{"compatible loopback, dotted", "::127.0.0.1", false},
		{"compatible private", "::a00:1", false},
		{"compatible 192.168", "::c0a8:101", false},
		{"compatible metadata", "::a9fe:a9fe", false},
		{"compatible CGNAT", "::6440:1", false},
		{"compatible multicast", "::e000:1", false},
		{"compatible documentation", "::c000:201", false},
		{"compatible this-network", "::2", false},
		{"compatible public", "::808:808", true},

		// IPv4-translated ::ffff:0:0:0/96 (SIIT).
		{"translated loopback", "::ffff:0:7f00:1", false},
		{"translated private", "::ffff:0:a00:1", false},
		{"translated metadata", "::ffff:0:a9fe:a9fe", false},
		{"translated 172.16", "::ffff:0:ac10:504", false},
		{"translated public", "::ffff:0:808:808", true},

		// NAT64 well-known prefix 64:ff9b::/96 (DNS64 synthesises these for IPv4-only hosts).
		{"NAT64 loopback", "64:ff9b::7f00:1", false},
		{"NAT64 private", "64:ff9b::a00:1", false},
		{"NAT64 private, dotted", "64:ff9b::192.168.0.1", false},
		{"NAT64 metadata", "64:ff9b::a9fe:a9fe", false},
		{"NAT64 CGNAT", "64:ff9b::6440:1", false},
		{"NAT64 public", "64:ff9b::808:808", true},
		// Local-use NAT64 64:ff9b:1::/48: the translator's prefix length, and so where the IPv4
		// address sits, is a local choice, and it may translate to private space: never dialled.
		{"local NAT64, /96 layout, private", "64:ff9b:1::a00:1", false},
		{"local NAT64, /48 layout, loopback", "64:ff9b:1:7f00:0:100::", false},
		{"local NAT64, public-looking", "64:ff9b:1::808:808", false},

		// 6to4 2002::/16 carries its IPv4 address in bits 16-47.
		{"6to4 loopback", "2002:7f00:1::1", false},
		{"6to4 private", "2002:a00:1::1", false},
		{"6to4 192.168", "2002:c0a8:101:1::1", false},
		{"6to4 metadata", "2002:a9fe:a9fe::1", false},
		{"6to4 CGNAT", "2002:6440:1::", false},
		{"6to4 public", "2002:808:808::1", true},
	}
	var policy domain.TargetPolicy
	for _, c := range cases {
		err := policy.Permit(netip.MustParseAddr(c.addr))
		if c.permitted {
			assert.NoError(t, err, "%s %s", c.form, c.addr)
		} else {
			assert.ErrorIs(t, err, domain.ErrForbiddenAddress, "%s %s", c.form, c.addr)
		}
	}
}

func TestAllowListOpensOnlyItsRanges(t *testing.T) {
	t.Parallel()
	policy := domain.TargetPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	for _, a := range []string{"127.0.0.1", "::ffff:127.0.0.1", "::7f00:1", "::ffff:0:7f00:1", "64:ff9b::7f00:1", "2002:7f00:1::1"} {
		require.NoError(t, policy.Permit(netip.MustParseAddr(a)), "%s carries 127.0.0.1", a)
	}
	for _, a := range []string{"10.0.0.1", "169.254.169.254", "::1", "::a00:1", "64:ff9b:1::7f00:1"} {
		require.ErrorIs(t, policy.Permit(netip.MustParseAddr(a)), domain.ErrForbiddenAddress, a)
	}
	v6 := domain.TargetPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("::1/128")}}
	require.NoError(t, v6.Permit(netip.MustParseAddr("::1")), "an IPv6 allow-list entry matches the address as written")
}
