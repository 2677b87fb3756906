package httpx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// validDebugAddr accepts an empty address (no debug listener) or a loopback one: profiles and
// goroutine dumps reveal internals, so they are reached by kubectl port-forward, never the network.
func validDebugAddr(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("DEBUG_ADDR %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("DEBUG_ADDR %q must be a loopback address (127.0.0.1:<port>): pprof must not be reachable from the network", addr)
	}
	return nil
}

// ServeDebug serves net/http/pprof on addr until ctx is done. It is off (returns nil at once)
// when addr is empty.
func ServeDebug(ctx context.Context, addr string) error {
	if addr == "" {
		return nil
	}
	if err := validDebugAddr(addr); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// No WriteTimeout: a CPU profile or trace streams for as long as its ?seconds= asks.
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	slog.Info("debug server (pprof) listening", "addr", addr)
	select {
	case err := <-errc:
		return fmt.Errorf("debug server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("debug server: %w", err)
	}
	return nil
}
