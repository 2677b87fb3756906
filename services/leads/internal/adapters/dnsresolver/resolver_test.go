package dnsresolver_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsresolver"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsserver"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsserver/dnstest"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
)

func newResolver(t *testing.T, server string) *dnsresolver.Resolver {
	t.Helper()
	r, err := dnsresolver.New(dnsresolver.Config{Server: server, Timeout: 300 * time.Millisecond, CacheSize: 100,
		MinTTL: time.Minute, MaxTTL: time.Hour, NegativeTTL: 5 * time.Minute})
	require.NoError(t, err)
	return r
}

func TestResolverAnswersFromTheLoopbackServer(t *testing.T) {
	t.Parallel()
	zone := &dnstest.CountingZone{Zone: dnsserver.Static{
		"acme.com":     {Mail: true, Web: true},
		"mailonly.com": {Mail: true},
		"webonly.com":  {Web: true},
	}}
	r := newResolver(t, dnstest.Start(t, zone))
	ctx := context.Background()

	require.Equal(t, qualify.Yes, r.MX(ctx, "ACME.com"))
	require.Equal(t, qualify.Yes, r.Resolves(ctx, "acme.com"))
	require.Equal(t, qualify.Yes, r.MX(ctx, "mailonly.com"))
	require.Equal(t, qualify.No, r.Resolves(ctx, "mailonly.com"), "no A and no AAAA")
	require.Equal(t, qualify.No, r.MX(ctx, "webonly.com"), "NODATA")
	require.Equal(t, qualify.No, r.MX(ctx, "nowhere.com"), "NXDOMAIN")

	before := zone.Lookups()
	require.Equal(t, qualify.Yes, r.MX(ctx, "acme.com"))
	require.Equal(t, qualify.No, r.MX(ctx, "nowhere.com"))
	require.Equal(t, before, zone.Lookups(), "answers, negative ones too, come from the cache")
}

func TestResolverReportsUnknownWhenDNSDoesNotAnswer(t *testing.T) {
	t.Parallel()
	// A socket that reads queries and never replies.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	r := newResolver(t, pc.LocalAddr().String())
	require.Equal(t, qualify.Unknown, r.MX(context.Background(), "acme.com"))
	require.Equal(t, qualify.Unknown, r.Resolves(context.Background(), "acme.com"))
}

func TestResolverTreatsServerFailureAsUnknown(t *testing.T) {
	t.Parallel()
	r := newResolver(t, dnstest.Start(t, failingZone{}))
	require.Equal(t, qualify.Unknown, r.MX(context.Background(), "acme.com"))
}

type failingZone struct{}

func (failingZone) Lookup(context.Context, string) (dnsserver.Host, bool, error) {
	return dnsserver.Host{}, false, context.DeadlineExceeded
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	require.Error(t, dnsresolver.Config{Server: "127.0.0.1", Timeout: time.Second, CacheSize: 1, MinTTL: 1, MaxTTL: 1, NegativeTTL: 1}.Validate())
	require.Error(t, dnsresolver.Config{Server: "127.0.0.1:53", Timeout: 0, CacheSize: 1, MinTTL: 1, MaxTTL: 1, NegativeTTL: 1}.Validate())
}
