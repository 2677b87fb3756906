// Package service is the leads composition root: it wires adapters into the use cases and the use
// cases into the HTTP routes and the inbound-lead consumer. Tests build the whole service too.
package service

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/allowance/reserveapi"
	"github.com/bizassist/bizassist/libs/apiclient"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/geo/geodata"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsresolver"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsserver"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/rediscache"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
	"github.com/bizassist/bizassist/services/leads/internal/ports"
	"github.com/bizassist/bizassist/services/leads/migrations"
)

// Name is the service name: schema, role, consumer group and telemetry label.
const Name = "leads"

// Service is a wired leads process.
type Service struct {
	*platform.Runtime
	App       app.Application
	analytics *apiclient.Client
}

// New opens the service's dependencies and wires the use cases. The caller must call Close.
func New(ctx context.Context, cfg Config) (*Service, error) {
	rt, err := platform.Open(ctx, Name, cfg.Config)
	if err != nil {
		return nil, err
	}
	now := rt.Now
	resolver, err := dnsresolver.New(cfg.DNS)
	if err != nil {
		rt.Close()
		return nil, err
	}
	places, err := geodata.Load()
	if err != nil {
		rt.Close()
		return nil, fmt.Errorf("place data: %w", err)
	}
	cat := postgres.NewCatalog(rt.Reads)
	sheetStore := postgres.NewSheet(rt.Pool, rt.Reads)
	q := app.Qualifier{Catalog: cat, Resolver: resolver}
	analytics := apiclient.New("analytics", cfg.AnalyticsURL, cfg.AnalyticsTimeout)
	allowances := reserveapi.New(analytics)
	uow, outbox := pgkit.Transactor{DB: rt.Pool, Join: true}, events.Outbox{} // no use case recovers from a failed unit of work
	a := app.Application{
		FindLeads:   app.FindLeads{Catalog: cat, Tx: uow, Sheet: sheetStore, Outbox: outbox, Allowances: allowances, UpgradeURL: cfg.UpgradeURL, Now: now, Places: places},
		QualifyLead: app.QualifyLead{Qualifier: q},
		ScoreBatch:  app.ScoreBatch{Qualifier: q, Allowances: allowances, UpgradeURL: cfg.UpgradeURL},
		ListSheet:   app.ListSheet{Sheet: sheetStore},
		ExportSheet: app.ExportSheet{Sheet: sheetStore},
		Stats:       app.NewCatalogStats(cat, rediscache.NewStats(rt.Redis, cfg.CachePrefix), now),
		Inbound:     app.RecordInboundLead{Tx: uow, Sheet: sheetStore, Outbox: outbox, Now: now},
	}
	if err := platform.Wired(a); err != nil {
		analytics.Close()
		rt.Close()
		return nil, err
	}
	return &Service{Runtime: rt, analytics: analytics, App: a}, nil
}

// Close releases the service's connections.
func (s *Service) Close() {
	s.analytics.Close()
	s.Runtime.Close()
}

// Migrate applies the leads schema and the event tables.
func (s *Service) Migrate(ctx context.Context) error {
	return s.Runtime.Migrate(ctx, migrations.Source)
}

// Handler returns the leads routes with the standard middleware.
func (s *Service) Handler() http.Handler {
	r := s.APIRouter()
	h := &ports.HTTP{App: s.App}
	h.Routes(r, s.Middleware())
	return r
}

// EventHandlers are the events leads consumes.
func (s *Service) EventHandlers() map[string]events.Handler {
	return ports.EventHandlers(s.App)
}

// Serve runs the HTTP server, the outbox relay and the inbound-lead consumer on ln until ctx ends.
func (s *Service) Serve(ctx context.Context, ln net.Listener) error {
	return s.Runtime.Serve(ctx, ln, s.Handler(), s.EventHandlers())
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
	rep, err := app.ImportCatalog{Store: w, Now: platform.WallClock}.Handle(ctx, rows, progress)
	if err != nil {
		return rep, fmt.Errorf("import catalog: %w", err)
	}
	if err := w.Analyze(ctx); err != nil {
		return rep, fmt.Errorf("analyze catalog: %w", err)
	}
	return rep, nil
}
