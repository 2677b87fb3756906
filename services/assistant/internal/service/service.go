// Package service is the assistant's composition root: it wires adapters into the use cases and
// the use cases into the HTTP and event ports. Tests build the whole service through New too.
package service

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/bizassist/bizassist/libs/allowance/reserveapi"
	"github.com/bizassist/bizassist/libs/apiclient"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/advisor"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/backend"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/feedcache"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/openaillm"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/places"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/tokenizer"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
	"github.com/bizassist/bizassist/services/assistant/internal/ports"
	"github.com/bizassist/bizassist/services/assistant/migrations"
)

// Name is the service name: schema, role, consumer group and telemetry label.
const Name = "assistant"

// feedTTL is how long the rendered public feed is served from cache (spec 8).
const feedTTL = 60 * time.Second

// Service is the assistant, assembled.
type Service struct {
	*platform.Runtime
	// App is the assistant's use cases.
	App app.Application

	adminSecret string
}

// New opens the assistant's dependencies and wires the use cases. The caller must call Close.
func New(ctx context.Context, cfg Config) (*Service, error) {
	tok, err := tokenizer.New()
	if err != nil {
		return nil, err
	}
	gazetteer, err := places.Load()
	if err != nil {
		return nil, err
	}
	rt, err := platform.Open(ctx, Name, cfg.Config)
	if err != nil {
		return nil, err
	}
	now := rt.Now
	analytics := apiclient.New("analytics", cfg.AnalyticsURL, cfg.ToolTimeout)
	back := backend.New(apiclient.New("leads", cfg.LeadsURL, cfg.ToolTimeout), analytics)
	var model app.Model = &advisor.Advisor{UpgradeURL: cfg.UpgradeURL}
	if cfg.LLM.Enabled() {
		model = openaillm.New(cfg.LLM)
	}
	feed, accounts := postgres.NewFeed(rt.Pool), postgres.NewAccounts(rt.Pool)
	cache := feedcache.New(rt.Redis, cfg.CachePrefix, feedTTL)
	a := app.Application{
		Chat: &app.Chat{
			Sessions: postgres.NewSessions(rt.Pool), Tools: back, Allowance: reserveapi.New(analytics),
			Model: model, Tokenizer: tok, Now: now, HistoryBudget: cfg.HistoryTokens, UpgradeURL: cfg.UpgradeURL,
			Places: gazetteer,
		},
		Seed:    &app.SeedFeed{Store: feed, Cache: cache, Now: now},
		Feed:    &app.PublicFeed{Store: feed, Cache: cache, Now: now},
		Record:  &app.RecordFeedEvent{Store: feed, Accounts: accounts},
		Account: &app.RecordAccount{Accounts: accounts},
	}
	if err := platform.Wired(a); err != nil {
		rt.Close()
		return nil, err
	}
	return &Service{Runtime: rt, App: a, adminSecret: cfg.AdminSecret}, nil
}

// Close releases the service's dependencies.
func (s *Service) Close() { s.Runtime.Close() }

// Migrate applies the assistant's schema and the event tables.
func (s *Service) Migrate(ctx context.Context) error {
	return s.Runtime.Migrate(ctx, migrations.Source)
}

// Handler returns the assistant's HTTP routes with the standard middleware.
func (s *Service) Handler() http.Handler {
	r := s.Runtime.APIRouter()
	h := &ports.HTTP{App: s.App, AdminSecret: s.adminSecret}
	h.Routes(r, s.Runtime.Middleware())
	return r
}

// EventHandlers are the events the assistant consumes into the public feed, and the account
// events that decide what of them is quoted.
func (s *Service) EventHandlers() map[string]events.Handler {
	return ports.EventHandlers(s.App)
}

// Serve runs the HTTP server, the outbox relay and the consumer on ln until ctx ends.
func (s *Service) Serve(ctx context.Context, ln net.Listener) error {
	return s.Runtime.Serve(ctx, ln, s.Handler(), s.EventHandlers())
}
