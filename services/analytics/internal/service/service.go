// Package service is analytics' composition root: it wires the postgres adapters into the use
// cases and the use cases into the HTTP routes, the event consumer and the health worker. Tests
// build the whole service through New too.
package service

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/services/analytics/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/ports"
	"github.com/bizassist/bizassist/services/analytics/migrations"
)

// Name is the service name: schema, role, consumer group and telemetry label.
const Name = "analytics"

// Service is analytics, assembled.
type Service struct {
	*platform.Runtime
	Accounts *postgres.Accounts
	Health   *postgres.Health
	Writer   *postgres.UsageWriter

	// App is analytics' use cases.
	App app.Application

	keyTTL time.Duration
}

// New opens analytics' dependencies and wires the use cases. The caller must call Close.
func New(ctx context.Context, cfg Config) (*Service, error) {
	rt, err := platform.Open(ctx, Name, cfg.Config)
	if err != nil {
		return nil, err
	}
	now := rt.Now
	accounts, store := postgres.NewAccounts(rt.Pool), postgres.NewHealth(rt.Pool)
	store.UseReplica(rt.Reads)
	writer := postgres.NewUsageWriter(rt.Pool, cfg.Writer)
	models := postgres.NewChurnModels(rt.Pool)
	allowances, reservations := postgres.NewAllowances(rt.Pool), postgres.NewReservations(rt.Pool)
	recompute := app.Recompute{Store: store, Models: models, Outbox: events.Outbox{}, Now: now}
	a := app.Application{
		LogUsage: app.LogUsage{Store: writer, Now: now},
		CheckPQL: app.CheckPQL{Allowances: allowances, Accounts: accounts, UpgradeURL: cfg.UpgradeURL, Now: now},
		ReserveUsage: app.ReserveUsage{Reservations: reservations, Allowances: allowances, Accounts: accounts,
			UpgradeURL: cfg.UpgradeURL, Now: now},
		ReleaseUsage: app.ReleaseUsage{Reservations: reservations, Now: now},
		HealthScore:  app.GetHealthScore{Store: store, Accounts: accounts, Recompute: recompute, Now: now},
		PredictChurn: app.PredictChurn{Store: store, Accounts: accounts, Recompute: recompute, UpgradeURL: cfg.UpgradeURL},
		Recompute:    recompute,
		Worker: app.Worker{Store: store, Recompute: recompute, DirtyEvery: cfg.HealthDirtyEvery,
			SweepEvery: cfg.HealthSweepEvery, BatchSize: cfg.HealthBatchSize},
		SeedDemo:    app.SeedDemo{Store: postgres.NewDemo(rt.Pool), Recompute: recompute, Now: now},
		FitChurn:    app.FitChurnModel{Models: models, Now: now},
		Projections: app.NewProjections(accounts),
		History:     app.GetHealthHistory{Store: store, Now: now},
	}
	s := &Service{Runtime: rt, Accounts: accounts, Health: store, Writer: writer, App: a,
		keyTTL: cfg.Idempotency.TTL} // log-usage keeps its keys in its own write's transaction
	if err := platform.Wired(a); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close commits the usage events still queued, then releases the service's dependencies.
func (s *Service) Close() {
	s.Writer.Close()
	s.Runtime.Close()
}

// Migrate applies analytics' schema and the event tables.
func (s *Service) Migrate(ctx context.Context) error {
	return s.Runtime.Migrate(ctx, migrations.Source)
}

// Handler returns analytics' HTTP routes with the standard middleware.
func (s *Service) Handler() http.Handler {
	r := s.Runtime.APIRouter()
	h := &ports.HTTP{App: s.App}
	h.Routes(r, s.Runtime.Middleware())
	return r
}

// EventHandlers are the events analytics consumes.
func (s *Service) EventHandlers() map[string]events.Handler {
	return ports.EventHandlers(s.App)
}

// churnFitEvery is how often the churn model is refitted from observed cancellations.
const churnFitEvery = 24 * time.Hour

// Serve runs the HTTP server, the outbox relay, the consumer, the health worker, the tier
// sampler and the periodic housekeeping on ln until ctx ends.
func (s *Service) Serve(ctx context.Context, ln net.Listener) error {
	return s.Runtime.Serve(ctx, ln, s.Handler(), s.EventHandlers(),
		platform.Worker{Name: "health worker", Run: s.App.Worker.Run},
		platform.Every("tier sampler", postgres.TiersEvery, postgres.TierSampler{Pool: s.Runtime.Pool}.Sample),
		platform.Every("idempotency key expiry", time.Hour, s.expireKeys),
		platform.Every("churn model fit", churnFitEvery, s.fitChurn))
}

// fitChurn refits the churn model; too few observed cancellations keeps the current model.
// Replicas may fit at the same time harmlessly: each stores a model and the newest is used.
func (s *Service) fitChurn(ctx context.Context) error {
	fitted, err := s.App.FitChurn.Handle(ctx)
	if errors.Is(err, health.ErrTooFewChurnSamples) {
		slog.DebugContext(ctx, "churn model kept", "reason", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	slog.InfoContext(ctx, "churn model fitted", "churned", fitted.Churned, "retained", fitted.Retained)
	return nil
}

// expireKeys forgets idempotency keys older than their TTL.
func (s *Service) expireKeys(ctx context.Context) error {
	n, err := s.Writer.ExpireKeys(ctx, s.Runtime.Now().Add(-s.keyTTL))
	if n > 0 {
		slog.InfoContext(ctx, "expired idempotency keys", "keys", n)
	}
	return err
}
