package ratelimit

import (
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP returns the address of the client that sent r, believing forwarding headers only from
// the configured trusted proxies (see ClientIPFrom).
func (l *Limiter) ClientIP(r *http.Request) netip.Addr {
	return ClientIPFrom(r, l.trusted)
}

// ClientIPFrom returns the address of the client that sent r. The TCP peer (r.RemoteAddr) is the
// answer unless it is in trusted; then X-Forwarded-For is walked from the right, skipping trusted
// hops, and the first untrusted hop is the client, so entries a client wrote itself on the left
// are ignored. Without X-Forwarded-For a valid X-Real-IP is used. An unparsable peer gives the
// zero Addr.
func ClientIPFrom(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := parseHost(r.RemoteAddr)
	if !peer.IsValid() || !containsAddr(trusted, peer) {
		return peer
	}
	if hops := r.Header.Values("X-Forwarded-For"); len(hops) > 0 {
		return walkForwarded(strings.Join(hops, ","), peer, trusted)
	}
	if real := parseHost(strings.TrimSpace(r.Header.Get("X-Real-IP"))); real.IsValid() {
		return real
	}
	return peer
}

// walkForwarded returns the rightmost untrusted hop. A hop that does not parse ends the walk at
// the last trusted one: nothing to its left can be believed.
func walkForwarded(header string, peer netip.Addr, trusted []netip.Prefix) netip.Addr {
	client := peer
	for rest := header; rest != ""; {
		var hop string
		if i := strings.LastIndexByte(rest, ','); i >= 0 {
			hop, rest = rest[i+1:], rest[:i]
		} else {
			hop, rest = rest, ""
		}
		hop = strings.TrimSpace(hop)
		if hop == "" {
			continue
		}
		a := parseHost(hop)
		if !a.IsValid() {
			return client
		}
		client = a
		if !containsAddr(trusted, a) {
			return a
		}
	}
	return client
}

// parseHost accepts "ip", "ip:port" and "[ipv6]:port", and returns IPv4-mapped IPv6 addresses
// as IPv4 so that IPv4 prefixes match them.
func parseHost(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return a.Unmap().WithZone("")
	}
	return netip.Addr{}
}
