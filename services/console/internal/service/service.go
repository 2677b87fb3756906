// Package service is the console's composition root: the API client and the session store wired
// into the use cases, and those into the pages. Tests build the whole service through New too.
package service

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api"
	"github.com/bizassist/bizassist/services/console/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/ports"
	"github.com/bizassist/bizassist/services/console/migrations"
)

// Name is the service name: schema, role and telemetry label.
const Name = "console"

// Service is the console, assembled.
type Service struct {
	*platform.Runtime
	Sessions *postgres.Sessions
	Web      *ports.Web
}

// New opens the console's dependencies and wires the pages. The caller must call Close.
func New(ctx context.Context, cfg Config) (*Service, error) {
	rt, err := platform.Open(ctx, Name, cfg.Config)
	if err != nil {
		return nil, err
	}
	now := rt.Now
	sessions := postgres.NewSessions(rt.Pool, now)
	a := app.New(api.New(cfg.API), sessions, cfg.SessionMaxAge, now)
	if err := platform.Wired(a); err != nil {
		rt.Close()
		return nil, err
	}
	return &Service{Runtime: rt, Sessions: sessions, Web: &ports.Web{App: a, ClientIP: rt.Limiter.ClientIP}}, nil
}

// Migrate applies the console's schema (sessions) and the shared event tables.
func (s *Service) Migrate(ctx context.Context) error {
	return s.Runtime.Migrate(ctx, migrations.Source)
}

// Handler returns the console's pages with the standard middleware.
func (s *Service) Handler() http.Handler {
	r := s.Runtime.Router()
	s.Web.Routes(r)
	return r
}

// pruneEvery is how often expired sessions are deleted.
const pruneEvery = time.Hour

// Serve runs the HTTP server and the session pruning on ln until ctx ends.
func (s *Service) Serve(ctx context.Context, ln net.Listener) error {
	return s.Runtime.Serve(ctx, ln, s.Handler(), nil,
		platform.Every("session pruning", pruneEvery, func(ctx context.Context) error {
			n, err := s.Sessions.Prune(ctx)
			if n > 0 {
				slog.InfoContext(ctx, "pruned expired sessions", "sessions", n)
			}
			return err
		}))
}
