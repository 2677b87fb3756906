package httpx_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
)

// TestDrainClosesKeepAliveConnectionsAfterTheirResponse: while draining, every response says
// Connection: close and the server closes the connection after it, so a proxy's pooled
// connections end cleanly one by one instead of being cut by Shutdown under a request being sent
// (the keep-alive race that failed in-flight requests on SIGTERM). Requests keep succeeding
// through the drain over keep-alive clients, and the one in flight at SIGTERM completes.
func TestDrainClosesKeepAliveConnectionsAfterTheirResponse(t *testing.T) {
	t.Parallel()
	cfg := httpx.ServerConfig{Addr: "127.0.0.1:0", ReadHeaderTimeout: time.Second, ReadTimeout: time.Second,
		WriteTimeout: 2 * time.Second, IdleTimeout: 10 * time.Second, DrainDelay: 500 * time.Millisecond, ShutdownTimeout: 2 * time.Second}
	inFlight, release := make(chan struct{}), make(chan struct{})
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(inFlight)
			<-release
		}
		httpx.Respond(w, http.StatusOK, map[string]any{})
	})
	srv := httpx.NewServer(cfg, api)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 5 * time.Second}
	get := func(path string) *http.Response {
		resp, err := client.Get(base + path)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return resp
	}
	require.Eventually(t, func() bool { return statusOf(base+"/readyz") == 200 }, 2*time.Second, 10*time.Millisecond)
	require.False(t, get("/x").Close, "before the drain, connections are kept alive")

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); get("/slow") }() // in flight at SIGTERM
	<-inFlight
	cancel()
	require.Eventually(t, func() bool { return statusOf(base+"/readyz") == 503 }, time.Second, 10*time.Millisecond)

	var closed atomic.Int32
	for range 10 {
		if get("/x").Close {
			closed.Add(1)
		}
	}
	require.Equal(t, int32(10), closed.Load(), "every response during the drain closes its connection")
	close(release) // the request in flight at SIGTERM completes too
	wg.Wait()
	require.NoError(t, <-done)
}
