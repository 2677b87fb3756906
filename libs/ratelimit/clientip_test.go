package ratelimit_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/ratelimit"
)

func TestClientIPBelievesOnlyTrustedProxies(t *testing.T) {
	t.Parallel()
	trusted, err := ratelimit.ParsePrefixes("TRUSTED_PROXIES", []string{"10.0.0.0/8", "::1/128"})
	require.NoError(t, err)
	cases := []struct {
		name   string
		remote string
		xff    []string
		realIP string
		want   string
	}{
		{"direct client", "198.51.100.4:5123", nil, "", "198.51.100.4"},
		{"untrusted peer's forwarding header is ignored", "198.51.100.4:5123", []string{"203.0.113.9"}, "203.0.113.8", "198.51.100.4"},
		{"trusted peer's forwarding header is honoured", "10.1.2.3:443", []string{"203.0.113.9"}, "", "203.0.113.9"},
		{"spoofed leftmost entries are ignored", "10.1.2.3:443", []string{"1.1.1.1, 2.2.2.2, 203.0.113.9"}, "", "203.0.113.9"},
		{"trusted hops are skipped from the right", "10.1.2.3:443", []string{"1.1.1.1, 203.0.113.9, 10.9.9.9"}, "", "203.0.113.9"},
		{"several header lines form one list", "10.1.2.3:443", []string{"1.1.1.1", "203.0.113.9, 10.9.9.9"}, "", "203.0.113.9"},
		{"all hops trusted gives the leftmost", "10.1.2.3:443", []string{"10.7.7.7, 10.8.8.8"}, "", "10.7.7.7"},
		{"garbage stops the walk at the last trusted hop", "10.1.2.3:443", []string{"203.0.113.9, junk, 10.8.8.8"}, "", "10.8.8.8"},
		{"hop with a port", "10.1.2.3:443", []string{"203.0.113.9:4711"}, "", "203.0.113.9"},
		{"ipv6 hop", "10.1.2.3:443", []string{"[2001:db8::1]:4711"}, "", "2001:db8::1"},
		{"X-Real-IP when there is no X-Forwarded-For", "10.1.2.3:443", nil, "203.0.113.9", "203.0.113.9"},
		{"invalid X-Real-IP falls back to the peer", "10.1.2.3:443", nil, "nope", "10.1.2.3"},
		{"ipv6 loopback proxy", "[::1]:443", []string{"203.0.113.9"}, "", "203.0.113.9"},
		{"ipv4-mapped peer matches ipv4 prefixes", "[::ffff:10.1.2.3]:443", []string{"203.0.113.9"}, "", "203.0.113.9"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if tc.realIP != "" {
				r.Header.Set("X-Real-IP", tc.realIP)
			}
			require.Equal(t, netip.MustParseAddr(tc.want), ratelimit.ClientIPFrom(r, trusted))
		})
	}
}

func TestClientIPOfAnUnparsablePeerIsInvalid(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "pipe"
	require.False(t, ratelimit.ClientIPFrom(r, nil).IsValid())
}
