// Package dnstest starts the loopback DNS server for a test and counts the lookups that reach it.
package dnstest

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsserver"
)

// Start serves zone on a free loopback port (UDP and TCP) until the test ends and returns host:port.
func Start(t testing.TB, zone dnsserver.Zone) string {
	t.Helper()
	var (
		pc  net.PacketConn
		ln  net.Listener
		err error
	)
	// A port free for UDP may be taken for TCP; try another.
	for range 20 {
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatalf("dnstest: %v", err)
		}
		if ln, err = net.Listen("tcp", pc.LocalAddr().String()); err == nil {
			break
		}
		pc.Close()
	}
	if err != nil {
		t.Fatalf("dnstest: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dnsserver.ServeOn(ctx, pc, ln, zone) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("dnstest: %v", err)
		}
	})
	return pc.LocalAddr().String()
}

// CountingZone is Zone counting the lookups that reach it, so a test can see a cache at work or
// that nothing was asked.
type CountingZone struct {
	dnsserver.Zone
	n atomic.Int64
}

func (z *CountingZone) Lookup(ctx context.Context, domain string) (dnsserver.Host, bool, error) {
	z.n.Add(1)
	return z.Zone.Lookup(ctx, domain)
}

// Lookups is how many lookups reached the zone so far.
func (z *CountingZone) Lookups() int64 { return z.n.Load() }
