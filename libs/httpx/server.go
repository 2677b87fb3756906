package httpx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bizassist/bizassist/libs/setting"
)

// ServerConfig holds the listener address and the timeouts that keep slow clients from holding
// connections open.
type ServerConfig struct {
	Addr              string        `env:"HTTP_ADDR" envDefault:":8080"`
	ReadHeaderTimeout time.Duration `env:"HTTP_READ_HEADER_TIMEOUT" envDefault:"5s"`
	ReadTimeout       time.Duration `env:"HTTP_READ_TIMEOUT" envDefault:"15s"`
	WriteTimeout      time.Duration `env:"HTTP_WRITE_TIMEOUT" envDefault:"30s"`
	IdleTimeout       time.Duration `env:"HTTP_IDLE_TIMEOUT" envDefault:"120s"`
	// DrainDelay is how long readiness reports 503 before the listener closes, so that load
	// balancers stop sending new requests first.
	DrainDelay      time.Duration `env:"HTTP_DRAIN_DELAY" envDefault:"5s"`
	ShutdownTimeout time.Duration `env:"HTTP_SHUTDOWN_TIMEOUT" envDefault:"20s"`
	// DebugAddr, when set, serves net/http/pprof there; it must be a loopback address.
	DebugAddr string `env:"DEBUG_ADDR"`
	// MaxInFlight bounds the API requests a process serves at once, and QueueWait how long one
	// more waits for a slot before it is refused 503 overloaded (Shed); 0 does not bound them.
	// The probes and /metrics are never bounded.
	MaxInFlight int           `env:"HTTP_MAX_IN_FLIGHT" envDefault:"512"`
	QueueWait   time.Duration `env:"HTTP_QUEUE_WAIT" envDefault:"250ms"`
}

// Validate reports a config that cannot work.
func (c ServerConfig) Validate() error {
	if c.Addr == "" {
		return errors.New("HTTP_ADDR must not be empty")
	}
	for name, d := range map[string]time.Duration{
		"HTTP_READ_HEADER_TIMEOUT": c.ReadHeaderTimeout, "HTTP_READ_TIMEOUT": c.ReadTimeout,
		"HTTP_WRITE_TIMEOUT": c.WriteTimeout, "HTTP_IDLE_TIMEOUT": c.IdleTimeout,
		"HTTP_SHUTDOWN_TIMEOUT": c.ShutdownTimeout,
	} {
		if d <= 0 {
			return fmt.Errorf("%s must be positive, got %s", name, d)
		}
	}
	if c.DrainDelay < 0 {
		return fmt.Errorf("HTTP_DRAIN_DELAY must not be negative, got %s", c.DrainDelay)
	}
	if err := errors.Join(setting.NotNegative("HTTP_MAX_IN_FLIGHT", c.MaxInFlight), setting.NotNegative("HTTP_QUEUE_WAIT", c.QueueWait)); err != nil {
		return err
	}
	return validDebugAddr(c.DebugAddr)
}

// ReadyCheck reports whether a dependency the service needs is reachable.
type ReadyCheck struct {
	Name  string
	Check func(context.Context) error
}

// Server serves an API handler next to /livez, /readyz and /metrics.
type Server struct {
	cfg      ServerConfig
	srv      *http.Server
	draining atomic.Bool
	checks   []ReadyCheck
}

// NewServer wraps api with the operational endpoints. api receives every other path.
func NewServer(cfg ServerConfig, api http.Handler, checks ...ReadyCheck) *Server {
	s := &Server{cfg: cfg, checks: checks}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) {
		writeRaw(w, http.StatusOK, []byte(`{"ok":true}`+"\n"))
	})
	mux.HandleFunc("GET /readyz", s.ready)
	// promhttp.Handler() with OpenMetrics offered: a scraper that asks for it (Prometheus does)
	// gets the histograms' exemplars, which carry trace ids (telemetry.ObserveWithTrace).
	mux.Handle("GET /metrics", promhttp.InstrumentMetricHandler(prometheus.DefaultRegisterer,
		promhttp.HandlerFor(prometheus.DefaultGatherer, promhttp.HandlerOpts{EnableOpenMetrics: true})))
	mux.Handle("/", api)
	s.srv = &http.Server{
		Addr:              cfg.Addr,
		Handler:           s.closeWhileDraining(mux),
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn),
	}
	return s
}

// closeWhileDraining answers with Connection: close once draining has begun, so the server closes
// each kept-alive connection right after a response, when no request is on it. Left to Shutdown,
// an idle pooled connection is cut while a proxy may be sending the next request on it, which the
// proxy cannot retry safely and fails.
func (s *Server) closeWhileDraining(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		writeRaw(w, http.StatusServiceUnavailable, []byte(`{"ok":false,"error":"draining","code":"unavailable"}`+"\n"))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	for _, c := range s.checks {
		if err := c.Check(ctx); err != nil {
			slog.WarnContext(ctx, "readiness check failed", "check", c.Name, "error", err)
			Respond(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "error": c.Name + " unavailable", "code": "unavailable"})
			return
		}
	}
	writeRaw(w, http.StatusOK, []byte(`{"ok":true}`+"\n"))
}

// Serve serves on ln until ctx is done. On cancellation readiness turns 503 and every response
// closes its connection; the server waits DrainDelay for load balancers to notice and for pooled
// connections to be used once more and closed, then shuts down gracefully within ShutdownTimeout.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(ln) }()
	slog.Info("http server listening", "addr", ln.Addr().String())

	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	s.draining.Store(true)
	slog.Info("draining http server", "delay", s.cfg.DrainDelay)
	time.Sleep(s.cfg.DrainDelay)

	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := s.srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("http shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http server: %w", err)
	}
	return nil
}
