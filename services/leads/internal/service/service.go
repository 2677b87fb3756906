// Package service is the leads composition root: it wires adapters into the use cases and runs
// the HTTP server, the outbox relay and the inbound-lead consumer.
package service

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/libs/rediskit"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsresolver"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/rediscache"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/dnsserver"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
	"github.com/bizassist/bizassist/services/leads/internal/ports"
	"github.com/bizassist/bizassist/services/leads/migrations"
)

const (
	name          = "leads"
	consumerGroup = name
)

// Sources are the migrations of the leads schema: its own and the events outbox.
var Sources = []pgkit.Source{{Name: name, FS: migrations.FS}, events.Migrations}

// Migrate applies every migration source.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	return pgkit.Migrate(ctx, pool, schema, Sources...)
}

func now() time.Time { return time.Now().UTC() }

// Service is a wired leads process.
type Service struct {
	App    app.Application
	Server *httpx.Server

	relay    *events.Relay
	consumer *events.Consumer
}

// New opens the pool and Redis and wires everything; cleanup closes them.
func New(ctx context.Context, cfg Config) (*Service, func(), error) {
	pool, err := pgkit.Open(ctx, cfg.DB)
	if err != nil {
		return nil, nil, err
	}
	rdb, err := rediskit.Open(cfg.Redis)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	cleanup := func() { _ = rdb.Close(); pool.Close() }
	s, err := Build(pool, rdb, cfg, "")
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return s, cleanup, nil
}

// Build wires a service over an open pool and Redis client; cachePrefix isolates the Redis cache
// keys (tests). Component tests call it directly.
func Build(pool *pgxpool.Pool, rdb redis.UniversalClient, cfg Config, cachePrefix string) (*Service, error) {
	resolver, err := dnsresolver.New(cfg.DNS)
	if err != nil {
		return nil, err
	}
	cat := postgres.NewCatalog(pool)
	sheetStore := postgres.NewSheet(pool)
	q := app.Qualifier{Catalog: cat, Resolver: resolver}
	a := app.Application{
		FindLeads:   app.FindLeads{Catalog: cat, Sheet: sheetStore, Now: now},
		QualifyLead: app.QualifyLead{Qualifier: q},
		ScoreBatch:  app.ScoreBatch{Qualifier: q, Allowances: postgres.NewAllowances(pool), UpgradeURL: cfg.UpgradeURL, Now: now},
		ListSheet:   app.ListSheet{Sheet: sheetStore},
		ExportSheet: app.ExportSheet{Sheet: sheetStore},
		Stats:       app.NewCatalogStats(cat, rediscache.NewStats(rdb, cachePrefix), now),
		Inbound:     app.RecordInboundLead{Sheet: sheetStore, Now: now},
	}
	verifier, err := authjwt.NewVerifier(cfg.JWT)
	if err != nil {
		return nil, err
	}
	limiter, err := ratelimit.New(rdb, cfg.RateLimit)
	if err != nil {
		return nil, err
	}
	routes := ports.HTTP{App: a, Auth: verifier, Limiter: limiter}
	server := httpx.NewServer(cfg.HTTP, routes.Router(),
		httpx.ReadyCheck{Name: "postgres", Check: pool.Ping},
		httpx.ReadyCheck{Name: "redis", Check: rediskit.Ping(rdb)})
	consumerCfg := cfg.Consumer
	consumerCfg.Group = consumerGroup
	return &Service{
		App: a, Server: server,
		relay:    events.NewRelay(pool, rdb, cfg.Relay),
		consumer: events.NewConsumer(pool, rdb, consumerCfg, ports.EventHandlers(a)),
	}, nil
}

// Handler is the HTTP handler with the operational endpoints, for in-process tests.
func (s *Service) Handler() http.Handler { return s.Server.Handler() }

// Run serves until ctx ends, then drains.
func (s *Service) Run(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.Server.Run(gctx) })
	g.Go(func() error { return s.relay.Run(gctx) })
	g.Go(func() error { return s.consumer.Run(gctx) })
	err := g.Wait()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// DNSZone is what the loopback DNS server answers for: the mail providers the qualifier knows
// (free-mail and disposable) and every domain in the catalog.
func DNSZone(pool *pgxpool.Pool) dnsserver.Zone {
	return dnsserver.Zones{
		dnsserver.MailProviders(qualify.FreeMailDomains(), qualify.DisposableDomains()),
		postgres.NewDNSZone(pool),
	}
}

// ImportCatalog loads a catalog file into the pool's schema.
func ImportCatalog(ctx context.Context, pool *pgxpool.Pool, rows app.CatalogRows, progress func(app.ImportReport)) (app.ImportReport, error) {
	w := postgres.NewCatalogWriter(pool)
	rep, err := app.ImportCatalog{Store: w, Now: now}.Handle(ctx, rows, progress)
	if err != nil {
		return rep, fmt.Errorf("import catalog: %w", err)
	}
	if err := w.Analyze(ctx); err != nil {
		return rep, fmt.Errorf("analyze catalog: %w", err)
	}
	return rep, nil
}
