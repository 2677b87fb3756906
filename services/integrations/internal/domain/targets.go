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
// address space, documentation, benchmarking, relays and the like. Loopback, RFC 1918,
// link-local (metadata), multicast and unspecified are caught by the netip predicates in Permit;
// IPv6 forms that carry an IPv4 address are judged as that address (see carriedIPv4).
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast (deprecated)
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64: may translate to private IPv4, at a locally chosen offset
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments (Teredo, ORCHID...)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fc00::/7"),        // unique local
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

// ipv4Carriers are the IPv6 forms that stand for an IPv4 address, with the byte offset of that
// address. A stack, tunnel or translator on the path delivers them to the IPv4 address.
var ipv4Carriers = []struct {
	prefix netip.Prefix
	at     int
}{
	{netip.MustParsePrefix("::ffff:0:0/96"), 12},   // IPv4-mapped
	{netip.MustParsePrefix("::/96"), 12},           // IPv4-compatible (deprecated)
	{netip.MustParsePrefix("::ffff:0:0:0/96"), 12}, // IPv4-translated (SIIT)
	{netip.MustParsePrefix("64:ff9b::/96"), 12},    // NAT64 well-known prefix (RFC 6052)
	{netip.MustParsePrefix("2002::/16"), 2},        // 6to4: bits 16-47
}

// carriedIPv4 returns the IPv4 address an IPv6 address stands for, if it is one of ipv4Carriers.
func carriedIPv4(addr netip.Addr) (netip.Addr, bool) {
	if !addr.Is6() {
		return netip.Addr{}, false
	}
	b := addr.As16()
	for _, c := range ipv4Carriers {
		if c.prefix.Contains(addr) {
			return netip.AddrFrom4([4]byte(b[c.at : c.at+4])), true
		}
	}
	return netip.Addr{}, false
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

// Permit reports whether addr may be dialled. An IPv6 address that carries an IPv4 address
// (mapped, compatible, translated, NAT64, 6to4) is judged as that IPv4 address, so
// [::ffff:0:7f00:1] is loopback.
func (p TargetPolicy) Permit(addr netip.Addr) error {
	written := addr.WithZone("")
	judged := written
	if v4, ok := carriedIPv4(written); ok {
		judged = v4
	}
	for _, allowed := range p.Allow {
		if allowed.Contains(written) || allowed.Contains(judged) {
			return nil
		}
	}
	if !publicUnicast(judged) {
		return fmt.Errorf("%s: %w", addr, ErrForbiddenAddress)
	}
	return nil
}

func publicUnicast(addr netip.Addr) bool {
	if !addr.IsValid() || addr.IsUnspecified() || addr.IsLoopback() || addr.IsPrivate() ||
		addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || addr.IsInterfaceLocalMulticast() ||
		addr.IsMulticast() || !addr.IsGlobalUnicast() {
		return false
	}
	for _, blocked := range blockedPrefixes {
		if blocked.Contains(addr) {
			return false
		}
	}
	return true
}
