package platform

import (
	"context"
	"net"
	"runtime/debug"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/svc"
)

// Process is a service's composition root as the standard commands see it. Embedding *Runtime
// provides Listen.
type Process interface {
	Listen() (net.Listener, error)
	Serve(ctx context.Context, ln net.Listener) error
	Migrate(ctx context.Context) error
	Close()
}

// Load reads the service's config C from the environment, validates it and builds the service.
// Service-specific commands use it to get the same wiring as serve.
func Load[C any, P Process](ctx context.Context, build func(context.Context, C) (P, error)) (P, error) {
	var cfg C
	if err := svc.LoadConfig(&cfg); err != nil {
		var zero P
		return zero, err
	}
	return build(ctx, cfg)
}

// OpenPool reads only the DATABASE_* settings from the environment and opens the service's pool,
// for command-line verbs that need the database and nothing else the service would open (Redis,
// the JWKS). The caller closes the pool.
func OpenPool(ctx context.Context) (*pgxpool.Pool, error) {
	var cfg pgkit.Config
	if err := svc.LoadConfig(&cfg); err != nil {
		return nil, err
	}
	return pgkit.Open(ctx, cfg)
}

// Commands returns the serve and migrate commands every service binary has; add the service's
// own commands to the map before passing it to svc.Main.
func Commands[C any, P Process](build func(context.Context, C) (P, error)) map[string]svc.Command {
	return map[string]svc.Command{
		"serve": {Summary: "serve the HTTP API, the outbox relay, the event consumer and the workers (default)",
			Run: func(ctx context.Context, _ []string) error {
				p, err := Load(ctx, build)
				if err != nil {
					return err
				}
				defer p.Close()
				// Building leaves start-up's garbage (data files parsed, migrations read) in a heap
				// the runtime would return to the OS only minutes later; the idle process holds
				// its live heap from the start instead.
				debug.FreeOSMemory()
				ln, err := p.Listen()
				if err != nil {
					return err
				}
				return p.Serve(ctx, ln)
			}},
		"migrate": {Summary: "apply the service's database migrations",
			Run: func(ctx context.Context, _ []string) error {
				p, err := Load(ctx, build)
				if err != nil {
					return err
				}
				defer p.Close()
				return p.Migrate(ctx)
			}},
	}
}
