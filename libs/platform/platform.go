// Package platform is the part of every service's composition root that is the same in all of
// them: typed config for the shared dependencies, opening them, a router with the standard
// middleware, migrations, and running the HTTP server next to the event relay, the consumer and
// any background loops until the process is signalled.
package platform

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/gorilla/mux"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/idempotency"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/libs/rediskit"
	"github.com/bizassist/bizassist/libs/telemetry"
)

// Config is the configuration every service shares; a service embeds it in its own Config.
type Config struct {
	HTTP      httpx.ServerConfig
	DB        pgkit.Config
	Replica   pgkit.ReplicaConfig
	Redis     rediskit.Config
	RateLimit ratelimit.Config
	Auth      authjwt.Config
	Relay     events.RelayConfig
	Consumer  events.ConsumerConfig
	// Consumers is how many members of the service's group this process runs, named apart so
	// that Redis spreads the events among them as among replicas. Each handles a read batch per
	// transaction and more members make smaller batches: add some only when one cannot keep up.
	Consumers int `env:"EVENTS_CONSUMERS" envDefault:"1"`
	Telemetry telemetry.Config
	// Idempotency is how long Idempotency-Keys live (IDEMPOTENCY_KEY_TTL, IDEMPOTENCY_LEASE).
	Idempotency idempotency.Config
	// Clock is the time the service's use cases read; nil is WallClock. Only tests set it (they
	// move a clock instead of sleeping); no setting names it.
	Clock func() time.Time `env:"-"`
}

// WallClock is the time in UTC, the clock of every service outside tests.
func WallClock() time.Time { return time.Now().UTC() }

// Validate checks every part, so a bad setting stops the process before it starts.
func (c Config) Validate() error {
	var consumers error
	if c.Consumers < 1 {
		consumers = errors.New("EVENTS_CONSUMERS must be at least 1")
	}
	return errors.Join(consumers, c.HTTP.Validate(), c.DB.Validate(), c.Replica.Validate(), c.Redis.Validate(), c.RateLimit.Validate(),
		c.Auth.Validate(), c.Relay.Validate(), c.Idempotency.Validate())
}

// Runtime holds the opened shared dependencies of one service process.
type Runtime struct {
	Name   string
	Config Config
	Pool   *pgxpool.Pool
	// Reads routes lag-tolerant reads to the read replica (DATABASE_REPLICA_URL) or the primary.
	Reads    *pgkit.Reads
	Redis    redis.UniversalClient
	Limiter  *ratelimit.Limiter
	Verifier *authjwt.Verifier
	// Keys stores the answers of requests sent with an Idempotency-Key.
	Keys *idempotency.Keys

	shutdownTelemetry func(context.Context) error
}

// Open sets up telemetry and connects PostgreSQL and Redis. PostgreSQL must be reachable;
// Redis need not be (the limiter falls back, the relay retries).
func Open(ctx context.Context, name string, cfg Config) (*Runtime, error) {
	shutdown, err := telemetry.Setup(ctx, name, cfg.Telemetry)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	rt := &Runtime{Name: name, Config: cfg, shutdownTelemetry: shutdown}
	if rt.Pool, err = pgkit.Open(ctx, cfg.DB); err != nil {
		rt.Close()
		return nil, err
	}
	rt.Keys = idempotency.New(rt.Pool, cfg.Idempotency)
	if rt.Redis, err = rediskit.Open(cfg.Redis); err != nil {
		rt.Close()
		return nil, err
	}
	recent := rediskit.Recent{RDB: rt.Redis, Prefix: cmp.Or(cfg.Relay.StreamPrefix, "bizassist") + ":recent:" + name + ":"}
	if rt.Reads, err = pgkit.OpenReplica(ctx, cfg.DB, cfg.Replica, rt.Pool, recent); err != nil {
		rt.Close()
		return nil, err
	}
	if rt.Limiter, err = ratelimit.New(rt.Redis, cfg.RateLimit); err != nil {
		rt.Close()
		return nil, err
	}
	if rt.Verifier, err = authjwt.NewVerifier(cfg.Auth); err != nil {
		rt.Close()
		return nil, err
	}
	return rt, nil
}

// Now reads the service's clock (Config.Clock, or WallClock).
func (rt *Runtime) Now() time.Time {
	if rt.Config.Clock != nil {
		return rt.Config.Clock()
	}
	return WallClock()
}

// Close releases what Open acquired, flushing telemetry last.
func (rt *Runtime) Close() {
	if rt.Reads != nil {
		rt.Reads.Close()
	}
	if rt.Pool != nil {
		rt.Pool.Close()
	}
	if rt.Redis != nil {
		_ = rt.Redis.Close()
	}
	if rt.shutdownTelemetry != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := rt.shutdownTelemetry(ctx); err != nil {
			slog.Warn("telemetry shutdown", "error", err)
		}
	}
}

// Shared are the tables every service's schema has next to its own: the event outbox and
// processed ids, and the answers of idempotent requests.
var Shared = []pgkit.Source{events.Migrations, idempotency.Migrations}

// Migrate applies the Shared migrations and the service's own to its schema.
func (rt *Runtime) Migrate(ctx context.Context, sources ...pgkit.Source) error {
	return pgkit.Migrate(ctx, rt.Pool, rt.Config.DB.Schema, append(slices.Clone(Shared), sources...)...)
}

// Router returns a router with panic recovery, security headers, the API version, HEAD on every
// GET route and envelope 404/405 answers (405 with Allow). Telemetry wraps the whole router in
// Serve, so unmatched requests are measured too.
func (rt *Runtime) Router() *mux.Router {
	r := mux.NewRouter()
	r.NotFoundHandler = httpx.Versioned(unrouted(r, httpx.NotFoundHandler()))
	r.MethodNotAllowedHandler = r.NotFoundHandler
	r.Use(httpx.Recover, httpx.SecurityHeaders, httpx.Versioned)
	return r
}

// APIRouter is Router for the JSON API's services: path and query parameters that are not text
// PostgreSQL can store, and an empty Idempotency-Key, are 400s naming them before any handler
// runs. The console's pages keep Router: they answer in HTML and judge their own parameters.
func (rt *Runtime) APIRouter() *mux.Router {
	r := rt.Router()
	r.Use(httpx.TextParams(mux.Vars), httpx.NonEmptyHeaders(idempotency.Header))
	return r
}

// Middleware is what every service's inbound HTTP port wraps its routes in: ports.HTTP.Routes
// takes it, so routes are registered one way in every service.
type Middleware struct {
	// Limit is the rate limit of a policy, keyed by client IP.
	Limit func(ratelimit.Policy) mux.MiddlewareFunc
	// Authenticated requires a valid access token or API key.
	Authenticated mux.MiddlewareFunc
	// Idempotent honours Idempotency-Key on a POST that creates, spends or sends; it goes after
	// Authenticated, since keys are the caller's.
	Idempotent mux.MiddlewareFunc
}

// Middleware returns the runtime's middleware for a service's routes.
func (rt *Runtime) Middleware() Middleware {
	return Middleware{Limit: rt.RateLimit, Authenticated: rt.Authenticated(), Idempotent: rt.Idempotent()}
}

// RateLimit is the middleware for a policy keyed by client IP.
func (rt *Runtime) RateLimit(p ratelimit.Policy) mux.MiddlewareFunc {
	return mux.MiddlewareFunc(rt.Limiter.Middleware(p))
}

// Authenticated is the middleware that requires a valid access token or API key.
func (rt *Runtime) Authenticated() mux.MiddlewareFunc {
	return rt.Verifier.Middleware
}

// Idempotent is the middleware that makes a POST that creates, spends or sends safe to retry with
// an Idempotency-Key; it goes after Authenticated, since keys are the caller's.
func (rt *Runtime) Idempotent() mux.MiddlewareFunc {
	return rt.Keys.Middleware
}

// keysSweepEvery is how often expired Idempotency-Keys are deleted.
const keysSweepEvery = time.Hour

// redisSettingsEvery is how often a process checks that Redis keeps the settings production needs.
const redisSettingsEvery = 10 * time.Minute

// consumers are the Consumers members of the service's group: the configured consumer name (by
// default host-pid), numbered when there are several.
func (rt *Runtime) consumers(handlers map[string]events.Handler) []Worker {
	base := rt.Config.Consumer.Consumer
	if base == "" && rt.Config.Consumers > 1 {
		host, _ := os.Hostname()
		base = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	out := make([]Worker, max(rt.Config.Consumers, 1))
	for i := range out {
		cc := rt.Config.Consumer
		cc.Group = rt.Name
		name := "event consumer"
		if len(out) > 1 {
			cc.Consumer = fmt.Sprintf("%s-%d", base, i)
			name += " " + cc.Consumer
		}
		out[i] = Worker{Name: name, Run: events.NewConsumer(rt.Pool, rt.Redis, cc, handlers).Run}
	}
	return out
}

// Worker is a background loop that runs until its context ends.
type Worker struct {
	Name string
	Run  func(ctx context.Context) error
}

// Serve runs the HTTP server, the outbox relay, the follower of identity's revocations (so the
// verifier refuses revoked tokens and keys within seconds), the event consumer (when handlers are
// given) and the workers until ctx ends or one of them fails; then everything stops and drains.
// served is what a service's routes are served behind: shedding, and the request metrics around
// the router itself, since telemetry names a request's route only when it wraps the router (a
// shed request counts in bizassist_http_requests_shed_total instead).
func served(cfg httpx.ServerConfig, service string, router http.Handler) http.Handler {
	return httpx.Shed(cfg.MaxInFlight, cfg.QueueWait)(telemetry.Middleware(service)(router))
}

func (rt *Runtime) Serve(ctx context.Context, ln net.Listener, handler http.Handler, handlers map[string]events.Handler, workers ...Worker) error {
	srv := httpx.NewServer(rt.Config.HTTP, served(rt.Config.HTTP, rt.Name, handler),
		httpx.ReadyCheck{Name: "postgres", Check: rt.Pool.Ping})
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Serve(gctx, ln) })
	g.Go(func() error { return httpx.ServeDebug(gctx, rt.Config.HTTP.DebugAddr) })
	revocations := cmp.Or(rt.Config.Relay.StreamPrefix, "bizassist") + ":" + identityevents.AccountRevoked
	all := append([]Worker{
		{Name: "outbox relay", Run: events.NewRelay(rt.Pool, rt.Redis, rt.Config.Relay).Run},
		{Name: "revocation follower", Run: func(ctx context.Context) error {
			return rt.Verifier.FollowRevocations(ctx, rt.Redis, revocations)
		}},
		Every("redis settings check", redisSettingsEvery, rediskit.CheckSettings(rt.Redis)),
		Every("idempotency keys sweep", keysSweepEvery, rt.Keys.Sweep),
		{Name: "replica lag", Run: rt.Reads.Run},
	}, workers...)
	if len(handlers) > 0 {
		all = append(all, rt.consumers(handlers)...)
	}
	for _, w := range all {
		g.Go(func() error {
			if err := w.Run(gctx); err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("%s: %w", w.Name, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// Listen opens the configured HTTP address.
func (rt *Runtime) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", rt.Config.HTTP.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", rt.Config.HTTP.Addr, err)
	}
	return ln, nil
}
