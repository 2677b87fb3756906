package platformtest

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/svc"
)

// Listen opens a loopback socket for a service under test and returns it with its base URL, so
// the URL can go into the environment (identity's JWKS URL is its own) before the service starts.
func Listen(t testing.TB) (net.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("platformtest: listen: %v", err)
	}
	return ln, "http://" + ln.Addr().String()
}

// ClosedAddr returns a loopback address that nothing listens on: a peer that is down.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, addr := Listen(t)
	if err := ln.Close(); err != nil {
		t.Fatalf("platformtest: close: %v", err)
	}
	return addr[len("http://"):]
}

// Start loads the service's config from environ, builds it with build, migrates its schema and
// serves it on ln until the test ends; then it drains, and the test fails if serving failed.
func Start[C any, P platform.Process](t testing.TB, ln net.Listener, build func(context.Context, C) (P, error), environ map[string]string) P {
	t.Helper()
	environ["HTTP_ADDR"] = ln.Addr().String()
	var cfg C
	if err := svc.LoadConfigFrom(&cfg, environ); err != nil {
		t.Fatalf("platformtest: config: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := build(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("platformtest: build: %v", err)
	}
	if err := p.Migrate(ctx); err != nil {
		cancel()
		p.Close()
		t.Fatalf("platformtest: migrate: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("platformtest: serve: %v", err)
		}
		p.Close()
	})
	return p
}

// WaitReady waits until the service at base answers /readyz with 200: its start-up work is done,
// so a test that talks only to its handler does not end (and cancel it) in the middle of it.
func WaitReady(t testing.TB, base string) {
	t.Helper()
	require.Eventually(t, func() bool {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, base+"/readyz", nil)
		if err != nil {
			return false
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond, "platformtest: %s/readyz did not answer 200", base)
}
