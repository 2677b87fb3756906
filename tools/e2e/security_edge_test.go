package e2e

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/tools/internal/devenv"
	"github.com/bizassist/bizassist/tools/routegen"
)

// The ingress's edge bounds (issue 24, items 5 and 6). Source addresses: 127.0.8.x.

// routeTable is the ingress section of the chart values, which the local nginx is rendered from.
func routeTable(t *testing.T, s *Stack) routegen.Table {
	t.Helper()
	f, err := os.Open(filepath.Join(s.Root, "charts", "bizassist", "values.yaml"))
	require.NoError(t, err)
	defer f.Close()
	table, err := routegen.LoadTable(f)
	require.NoError(t, err)
	return table
}

// slowPost opens a TLS connection from sourceIP and sends a POST that declares a large body and
// then trickles it, a byte every 2 s (within the ingress's 10 s body timeout): a slow client that
// holds the connection as long as the test lets it, however long the others take to open.
func slowPost(t *testing.T, s *Stack, sourceIP string) net.Conn {
	t.Helper()
	tr, err := devenv.Transport(s.CACert, "")
	require.NoError(t, err)
	u, err := url.Parse(s.BaseURL)
	require.NoError(t, err)
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(dialedFrom(sourceIP))}}
	raw, err := d.Dial("tcp", u.Host)
	require.NoError(t, err)
	cfg := tr.TLSClientConfig.Clone()
	cfg.ServerName, cfg.NextProtos = u.Hostname(), []string{"http/1.1"}
	conn := tls.Client(raw, cfg)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = fmt.Fprintf(conn, "POST /api/ext-webhook HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", u.Host)
	require.NoError(t, err)
	go func() {
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for range tick.C {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return // closed by the test or the ingress
			}
		}
	}()
	return conn
}

// One address holds at most the route table's connectionsPerAddress connections: the next
// request from it is refused at once with the envelope while another address is served, and a
// closed slow connection frees its place.
func TestSecurityEdgeOneAddressCannotHoldTheIngressConnections(t *testing.T) {
	// A public route every install has (make up's /api/_baseline is local only) whose contract
	// lists 429, and that nginx proxies: what nginx answers itself (a return) is not bounded.
	const probePath = "/api/scout-stats"
	s := UseStack(t)
	limit := routeTable(t, s).Limits.ConnectionsPerAddress
	require.Positive(t, limit)
	const attacker, other = "127.0.8.1", "127.0.8.2"

	held := make([]net.Conn, limit)
	for i := range held {
		held[i] = slowPost(t, s, attacker)
	}
	probe := s.Client(t, attacker)
	var r *Response
	require.Eventually(t, func() bool {
		r = probe.Do(t, http.MethodGet, probePath, "", nil)
		return r.Status == http.StatusTooManyRequests
	}, 20*time.Second, 50*time.Millisecond, "with %d slow connections held from %s, one more request was still served", limit, attacker)
	require.Equal(t, "too_many_connections", r.JSON["code"], "%s", r.Raw)
	require.Equal(t, false, r.JSON["ok"])

	s.Client(t, other).Do(t, http.MethodGet, probePath, "", nil).Expect(t, http.StatusOK)

	require.NoError(t, held[0].Close())
	require.Eventually(t, func() bool {
		return probe.Do(t, http.MethodGet, probePath, "", nil).Status == http.StatusOK
	}, 20*time.Second, 50*time.Millisecond, "a closed slow connection gives its place back")
}

// Every service's /livez, /readyz and /metrics stay off the ingress, though / routes to the
// console: they are answered with the API's 404 envelope, however the path is spelled.
func TestSecurityEdgeOperationalPathsAreNotRouted(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.8.4")
	table := routeTable(t, s)
	require.NotEmpty(t, table.UnroutedPaths)
	for _, p := range table.UnroutedPaths {
		for _, spelled := range []string{p, p + "?x=1", "/" + p, "/." + p, "/api/.." + p, "/%" + fmt.Sprintf("%02X", p[1]) + p[2:]} {
			r := c.Do(t, http.MethodGet, spelled, "", nil)
			require.Equal(t, http.StatusNotFound, r.Status, "GET %s: %s", spelled, r.Raw)
			require.Equal(t, "not_found", r.JSON["code"], "GET %s: %s", spelled, r.Raw)
			require.NotContains(t, string(r.Raw), "bizassist_", "GET %s", spelled)
		}
	}
	for _, p := range []string{"/livez", "/readyz", "/metrics"} {
		require.Contains(t, table.UnroutedPaths, p, "every service serves %s (libs/httpx)", p)
	}
}
