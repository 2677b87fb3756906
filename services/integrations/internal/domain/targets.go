package domain

import (
	"errors"
	"fmt"
	"net/netip"
)

// ErrForbiddenAddress is returned when a delivery would dial an address of the platform's own
// or otherwise non-public network.
var ErrForbiddenAddress = errors.New("address is not a public unicast address")

// blockedPrefixes are ranges that are globally-unicast-looking but must never be dialled: shared
// address space, documentation, benchmarking, NAT64 and 6to4 (which can wrap private IPv4) and
// the like. Loopback, RFC 1918, link-local (metadata), multicast and unspecified are caught by
// the netip predicates in Permit.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 can reach any IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments (Teredo, ORCHID...)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4 wraps arbitrary IPv4
	netip.MustParsePrefix("fc00::/7"),        // unique local
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

// TargetPolicy decides which addresses outbound deliveries may reach and whether plain http is
// accepted. The zero value is the production policy: https to public unicast addresses only.
type TargetPolicy struct {
	// Allow lists ranges that are dialled even though they are not public, for local testing
	// (the local stack allows 127.0.0.0/8).
	Allow []netip.Prefix
	// AllowHTTP accepts http:// hook URLs besides https://.
	AllowHTTP bool
}

// Permit reports whether addr may be dialled. IPv4-mapped IPv6 addresses are judged as the IPv4
// address they carry, so [::ffff:127.0.0.1] is loopback.
func (p TargetPolicy) Permit(addr netip.Addr) error {
	addr = addr.Unmap().WithZone("")
	for _, allowed := range p.Allow {
		if allowed.Contains(addr) {
			return nil
		}
	}
	if !addr.IsValid() || addr.IsUnspecified() || addr.IsLoopback() || addr.IsPrivate() ||
		addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || addr.IsInterfaceLocalMulticast() ||
		addr.IsMulticast() || !addr.IsGlobalUnicast() {
		return fmt.Errorf("%s: %w", addr, ErrForbiddenAddress)
	}
	for _, blocked := range blockedPrefixes {
		if blocked.Contains(addr) {
			return fmt.Errorf("%s: %w", addr, ErrForbiddenAddress)
		}
	}
	return nil
}
