// Package service is the integrations composition root: it wires adapters into the use cases and
// runs the HTTP server, the delivery workers, the outbox relay and the event consumer.
package service

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"github.com/riverqueue/river"
	"golang.org/x/sync/errgroup"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/libs/rediskit"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/delivery"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/safehttp"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/ports"
	"github.com/bizassist/bizassist/services/integrations/migrations"
)

const (
	name          = "integrations"
	consumerGroup = name
)

// Migrate applies the service's migrations, the events outbox tables and River's tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	if err := pgkit.Migrate(ctx, pool, schema, pgkit.Source{Name: name, FS: migrations.FS}, events.Migrations); err != nil {
		return err
	}
	return delivery.Migrate(ctx, pool)
}

// Service is a wired integrations process.
type Service struct {
	App     app.Application
	Store   *postgres.Store
	Server  *httpx.Server
	Workers *river.Client[pgx.Tx]

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
	s, err := Build(pool, rdb, cfg)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return s, cleanup, nil
}

// Build wires a service over an open pool and Redis client; component tests call it directly.
func Build(pool *pgxpool.Pool, rdb redis.UniversalClient, cfg Config) (*Service, error) {
	policy, err := cfg.TargetPolicy()
	if err != nil {
		return nil, err
	}
	queue, err := delivery.NewQueue(pool)
	if err != nil {
		return nil, err
	}
	store := postgres.New(pool, queue)
	now := func() time.Time { return time.Now().UTC() }
	sender := delivery.Sender{Client: safehttp.NewClient(policy, cfg.DeliveryTimeout, cfg.DeliveryConcurrency), Now: now}
	a := app.Application{
		ReceiveInbound: app.ReceiveInbound{Secrets: store, Inbox: store, Now: now},
		RotateSecret:   app.RotateSecret{Secrets: store},
		ProjectAccount: app.ProjectAccount{Accounts: store},
		Hooks:          app.Hooks{Store: store, Policy: policy, Now: now},
		Forward:        app.Forward{Planner: store},
		Deliver:        app.Deliver{Store: store, Sender: sender, Policy: cfg.RetryPolicy(), Now: now},
		ReceivePayment: app.ReceivePayment{Tx: store, Payments: store, Outbox: store, Planner: store},
	}
	workers, err := delivery.NewWorkers(pool, a.Deliver, delivery.WorkerConfig{
		Concurrency: cfg.DeliveryConcurrency, Policy: cfg.RetryPolicy(), PollInterval: cfg.DeliveryPollInterval,
	})
	if err != nil {
		return nil, err
	}
	verifier, err := authjwt.NewVerifier(cfg.JWT)
	if err != nil {
		return nil, err
	}
	limiter, err := ratelimit.New(rdb, cfg.RateLimit)
	if err != nil {
		return nil, err
	}
	routes := ports.HTTP{App: a, Auth: verifier, Limiter: limiter,
		Payments: &ports.StripeWebhook{Secret: cfg.StripeWebhookSecret, Receive: a.ReceivePayment}}
	server := httpx.NewServer(cfg.HTTP, routes.Router(),
		httpx.ReadyCheck{Name: "postgres", Check: pool.Ping},
		httpx.ReadyCheck{Name: "redis", Check: rediskit.Ping(rdb)})
	consumerCfg := cfg.Consumer
	consumerCfg.Group = consumerGroup
	return &Service{
		App: a, Store: store, Server: server, Workers: workers,
		relay:    events.NewRelay(pool, rdb, cfg.Relay),
		consumer: events.NewConsumer(pool, rdb, consumerCfg, ports.EventHandlers(a)),
	}, nil
}

// Handler is the HTTP handler with the operational endpoints, for in-process tests.
func (s *Service) Handler() http.Handler { return s.Server.Handler() }

// Run serves until ctx ends, then drains HTTP and lets in-flight deliveries finish.
func (s *Service) Run(ctx context.Context) error {
	if err := s.Workers.Start(ctx); err != nil {
		return fmt.Errorf("start delivery workers: %w", err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.Server.Run(gctx) })
	g.Go(func() error { return s.relay.Run(gctx) })
	g.Go(func() error { return s.consumer.Run(gctx) })
	err := g.Wait()
	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if stopErr := s.Workers.Stop(stopCtx); stopErr != nil && err == nil {
		err = fmt.Errorf("stop delivery workers: %w", stopErr)
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil // shut down as asked
	}
	return err
}

// RotateSecretByEmail issues a new inbound secret for the owner with this email, waiting until
// deadline for identity's account.created to reach our projection.
func RotateSecretByEmail(ctx context.Context, pool *pgxpool.Pool, email string, deadline time.Time) (string, error) {
	store := postgres.New(pool, nil)
	for {
		accountID, err := store.OwnerByEmail(ctx, email)
		if err == nil {
			secret, err := app.RotateSecret{Secrets: store}.Handle(ctx, accountID)
			return string(secret), err
		}
		if !errors.Is(err, app.ErrNotFound) {
			return "", err
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no owner account %s is known to integrations (has identity's account.created arrived?)", email)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
