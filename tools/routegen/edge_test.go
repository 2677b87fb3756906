package routegen

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The errors nginx produces itself, before any service sees the request, are the API's envelope
// in JSON, on both ports: nginx's own pages are HTML, which no API client can read.
func TestNginxsOwnErrorsAreTheEnvelope(t *testing.T) {
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Skip("nginx is not installed (make up needs it: tools/devstack/deps.sh)")
	}
	httpPort, httpsPort := freePort(t), freePort(t)
	dir := startNginx(t, httpPort, httpsPort)
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "logs", "nginx-error.log"))
			t.Logf("nginx error log:\n%s", log)
		}
	})
	cases := []struct {
		name    string
		port    int
		tls     bool
		request string
		status  int
		code    string
	}{
		{"a NUL in the path", httpsPort, true, "GET /api/keys/%00 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad_request"},
		{"a 10 KB request line", httpsPort, true, "GET /api/keys?q=" + strings.Repeat("a", 10<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"},
		{"TRACE", httpsPort, true, "TRACE /api/keys HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"},
		{"an unknown transfer coding", httpsPort, true, "POST /api/keys HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not_implemented"},
		{"a 40 KB header", httpsPort, true, "GET /api/keys HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n", 431, "header_too_large"},
		{"a service that is down", httpsPort, true, "GET /api/keys HTTP/1.1\r\nHost: x\r\n\r\n", 503, "unavailable"},
		{"HTTP/3.0 over TCP", httpsPort, true, "GET /api/keys HTTP/3.0\r\nHost: x\r\n\r\n", 505, "http_version_not_supported"},
		{"a 2 MiB body", httpsPort, true, "POST /api/keys HTTP/1.1\r\nHost: x\r\nContent-Length: 2097152\r\n\r\n", 413, "body_too_large"},
		{"plain HTTP on the HTTPS port", httpsPort, false, "GET /api/keys HTTP/1.1\r\nHost: x\r\n\r\n", 400, "https_required"},
		{"a NUL in the path on the HTTP port", httpPort, false, "GET /api/keys/%00 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad_request"},
		{"plain HTTP for a host the certificate does not name", httpPort, false, "GET /api/keys HTTP/1.1\r\nHost: evil.example\r\n\r\n", 421, "misdirected_request"},
		{"a 10 KB request line on the HTTP port", httpPort, false, "GET /?q=" + strings.Repeat("a", 10<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := raw(t, tc.port, tc.tls, tc.request)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tc.status, resp.StatusCode, "%s", body)
			require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json"), "Content-Type %q: %s", resp.Header.Get("Content-Type"), body)
			var envelope struct {
				OK    *bool  `json:"ok"`
				Error string `json:"error"`
				Code  string `json:"code"`
			}
			require.NoError(t, json.Unmarshal(body, &envelope), "%s", body)
			require.NotNil(t, envelope.OK)
			require.False(t, *envelope.OK)
			require.NotEmpty(t, envelope.Error)
			require.Equal(t, tc.code, envelope.Code)
			if tc.status == http.StatusServiceUnavailable {
				// Its own add_header must keep the server's, and tell the client when to retry.
				require.Equal(t, "1", resp.Header.Get("Retry-After"))
				require.NotEmpty(t, resp.Header.Get("X-Request-Id"))
				require.NotEmpty(t, resp.Header.Get("Strict-Transport-Security"))
			}
		})
	}
}

// Plain HTTP is redirected to HTTPS on the same host only for the hosts the certificate names;
// the Host header is the client's, and a redirect to any host it names is an open redirect.
func TestPlainHTTPRedirectsOnlyToTheCertificatesHosts(t *testing.T) {
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Skip("nginx is not installed (make up needs it: tools/devstack/deps.sh)")
	}
	httpPort, httpsPort := freePort(t), freePort(t)
	startNginx(t, httpPort, httpsPort)
	for _, host := range []string{"localhost", "127.0.0.1"} {
		resp := raw(t, httpPort, false, "GET /api/keys?x=1 HTTP/1.1\r\nHost: "+host+":"+strconv.Itoa(httpPort)+"\r\n\r\n")
		resp.Body.Close()
		require.Equal(t, http.StatusPermanentRedirect, resp.StatusCode, host)
		require.Equal(t, "https://"+host+":"+strconv.Itoa(httpsPort)+"/api/keys?x=1", resp.Header.Get("Location"), host)
	}
}

// A body over the limit sent whole, as clients do, over HTTP/2 and HTTP/1.1: nginx reads part
// of it before refusing, which is another path to its 413 than a Content-Length it refuses at
// once (the e2e suite's TestOversizedBodiesAre413 got nginx's HTML page over HTTP/2).
func TestNginxRefusesAnOversizedBodyInTheEnvelope(t *testing.T) {
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Skip("nginx is not installed (make up needs it: tools/devstack/deps.sh)")
	}
	httpsPort := freePort(t)
	startNginx(t, freePort(t), httpsPort)
	body := `{"email":"a@b.c","password":"` + strings.Repeat("x", 2<<20) + `"}`
	for _, h2 := range []bool{true, false} {
		tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: h2} //nolint:gosec // a throwaway certificate
		if !h2 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		resp, err := (&http.Client{Transport: tr}).Post("https://127.0.0.1:"+strconv.Itoa(httpsPort)+"/api/auth", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		tr.CloseIdleConnections()
		require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "HTTP/2 %v: %s", h2, got)
		require.Contains(t, string(got), `"code":"body_too_large"`, "HTTP/2 %v (%s): %s", h2, resp.Proto, got)
	}
}

// startNginx runs the real template's config on the given ports with a throwaway certificate;
// every upstream is a closed port, so no request reaches a running stack.
func startNginx(t *testing.T, httpPort, httpsPort int) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"run", "tmp", "logs"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	certFile, keyFile := selfSigned(t, dir)
	f, err := os.Open("../../charts/bizassist/values.yaml")
	require.NoError(t, err)
	table, err := LoadTable(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	// Every upstream a closed port: the routes hold their ports already (LoadTable fills them in),
	// and a stack running on this machine must not answer for its services.
	closed := freePort(t)
	for i := range table.Routes {
		table.Routes[i].Port = closed
	}
	tmpl, err := os.ReadFile("../devstack/nginx.conf.tmpl")
	require.NoError(t, err)
	conf, err := Render(string(tmpl), table, map[string]string{
		"Prefix": dir, "LogDir": filepath.Join(dir, "logs"), "HTTPPort": strconv.Itoa(httpPort),
		"HTTPSPort": strconv.Itoa(httpsPort), "IPv6": "off", "CertFile": certFile, "KeyFile": keyFile,
		"ExemptCIDR": "127.0.0.9/32",
	})
	require.NoError(t, err)
	confFile := filepath.Join(dir, "nginx.conf")
	require.NoError(t, os.WriteFile(confFile, conf, 0o644))
	cmd := exec.Command("nginx", "-p", dir+"/", "-e", filepath.Join(dir, "logs", "error.log"), "-c", confFile, "-g", "daemon off;")
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(httpsPort))
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, 10*time.Second, 20*time.Millisecond, "nginx did not listen")
	return dir
}

// raw sends request as written (a client library would refuse most of these) and reads the answer.
func raw(t *testing.T, port int, useTLS bool, request string) *http.Response {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	var conn net.Conn
	var err error
	if useTLS {
		conn, err = tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}}) //nolint:gosec // a throwaway certificate
	} else {
		conn, err = net.Dial("tcp", addr)
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	return resp
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	return certFile, keyFile
}
