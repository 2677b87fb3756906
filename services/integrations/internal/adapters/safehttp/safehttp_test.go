package safehttp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform/platformtest"

	"github.com/bizassist/bizassist/services/integrations/internal/adapters/safehttp"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

var loopbackAllowed = domain.TargetPolicy{AllowHTTP: true, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}

// countingServer is a receiver on loopback that records whether anything reached it.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func post(client *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{}`))
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if resp != nil {
		_ = resp.Body.Close()
	}
	return err
}

func TestProbesAreRefusedAtDialTimeWhenTheAllowSettingIsOff(t *testing.T) {
	t.Parallel()
	srv, hits := countingServer(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	client := safehttp.NewClient(domain.TargetPolicy{AllowHTTP: true}, 2*time.Second, 4)

	for _, target := range []string{
		"http://127.0.0.1:" + port + "/hook",
		"http://10.0.0.1/hook",
		"http://169.254.169.254/latest/meta-data/",
		"http://[::1]:" + port + "/hook",
		"http://[::ffff:127.0.0.1]:" + port + "/hook",
		"http://[::7f00:1]:" + port + "/hook",          // IPv4-compatible loopback
		"http://[::a00:1]:" + port + "/hook",           // IPv4-compatible 10.0.0.1
		"http://[::ffff:0:7f00:1]:" + port + "/hook",   // IPv4-translated loopback
		"http://[64:ff9b::7f00:1]:" + port + "/hook",   // NAT64 loopback
		"http://[2002:a9fe:a9fe::1]:" + port + "/hook", // 6to4 metadata address
		"http://localhost:" + port + "/hook",           // a name that resolves to loopback
	} {
		err := post(client, target)
		require.ErrorIs(t, err, domain.ErrForbiddenAddress, target)
	}
	require.Zero(t, hits.Load(), "no probe may reach the loopback receiver")
}

func TestTheSameClientReachesAllowedRanges(t *testing.T) {
	t.Parallel()
	srv, hits := countingServer(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	client := safehttp.NewClient(loopbackAllowed, 2*time.Second, 4)
	require.NoError(t, post(client, srv.URL+"/hook"))
	require.EqualValues(t, 1, hits.Load())
}

// A public receiver could answer with a redirect to an internal address. Redirects are never
// followed, so even with loopback allowed for the first hop the second is never requested.
func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	internal, internalHits := countingServer(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	redirector, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL+"/admin", http.StatusFound)
	})
	client := safehttp.NewClient(loopbackAllowed, 2*time.Second, 4)
	err := post(client, redirector.URL+"/hook")
	require.ErrorIs(t, err, safehttp.ErrRedirect)
	require.Zero(t, internalHits.Load())
}

// Each way a delivery can fail is named in generic words an account may see.
func TestFailuresAreDescribedWithoutAddresses(t *testing.T) {
	t.Parallel()
	ok, _ := countingServer(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	redirector, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) })
	release := make(chan struct{})
	hanging, _ := countingServer(t, func(http.ResponseWriter, *http.Request) { <-release })
	t.Cleanup(func() { close(release) })
	tlsOnly := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(tlsOnly.Close)
	refused := platformtest.ClosedAddr(t)

	strict := safehttp.NewClient(domain.TargetPolicy{AllowHTTP: true}, 2*time.Second, 4)
	local := safehttp.NewClient(loopbackAllowed, 2*time.Second, 4)
	impatient := safehttp.NewClient(loopbackAllowed, 100*time.Millisecond, 4)
	for _, c := range []struct {
		client *http.Client
		url    string
		want   domain.Failure
	}{
		{strict, ok.URL, domain.FailureAddressNotAllowed},
		{local, redirector.URL, domain.FailureRedirect},
		{local, "http://" + refused + "/hook", domain.FailureConnectionRefused},
		{impatient, hanging.URL, domain.FailureTimeout},
		{local, tlsOnly.URL, domain.FailureTLS}, // a certificate no public CA signed
	} {
		err := post(c.client, c.url)
		require.Error(t, err, c.url)
		got := safehttp.Describe(err)
		require.Equal(t, c.want, got, "%s: %v", c.url, err)
		require.NotContains(t, string(got), "127.0.0.1")
	}
}
