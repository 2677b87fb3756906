// Package service is the integrations composition root: it wires adapters into the use cases and
// runs the HTTP server, the delivery workers, the outbox relay and the event consumer. Tests
// build the whole service through New too.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/delivery"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/inboundlimit"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/safehttp"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/ports"
	"github.com/bizassist/bizassist/services/integrations/migrations"
)

// Name is the service name: schema, role, consumer group and telemetry label.
const Name = "integrations"

// workerStopTimeout bounds how long in-flight deliveries may finish on shutdown.
const workerStopTimeout = 30 * time.Second

// dispatchBacklog is how many planned deliveries may wait for a dispatcher worker (a few seconds
// of a burst at full speed), and as many may be parked behind their accounts' attempts; past it
// the consumer waits up to dispatchWait for room before they go to queued jobs. A delivery let in
// after the wait still has the claim's 15 s of slack less that wait to reach a worker.
const (
	dispatchBacklog = 10_000
	dispatchWait    = 2 * time.Second
)

// Service is integrations, assembled.
type Service struct {
	*platform.Runtime
	App           app.Application
	Subscriptions *postgres.Subscriptions
	Workers       *river.Client[pgx.Tx]
	Dispatcher    *app.Dispatcher

	stripeSecret string
	jobTimeout   time.Duration
}

// New opens the dependencies and wires the use cases. The caller must call Close.
func New(ctx context.Context, cfg Config) (*Service, error) {
	box, err := sealbox.New(cfg.Sealing)
	if err != nil {
		return nil, err
	}
	rt, err := platform.Open(ctx, Name, cfg.Config)
	if err != nil {
		return nil, err
	}
	s, err := build(rt, cfg, box)
	if err != nil {
		rt.Close()
		return nil, err
	}
	return s, nil
}

func build(rt *platform.Runtime, cfg Config, box *sealbox.Box) (*Service, error) {
	policy, err := cfg.TargetPolicy()
	if err != nil {
		return nil, err
	}
	if cfg.DevMode {
		slog.Warn("INTEGRATIONS_DEV_MODE is on: deliveries may reach the allowed private ranges and use plain http",
			"allow", cfg.TargetAllowCIDRs, "http", cfg.TargetAllowHTTP)
	}
	queue, err := delivery.NewQueue(rt.Pool, cfg.DeliveryCooldown)
	if err != nil {
		return nil, err
	}
	accounts, inbox, payments := postgres.NewAccounts(rt.Pool), postgres.NewInbox(rt.Pool), postgres.NewPayments(rt.Pool)
	subscriptions := postgres.NewSubscriptions(rt.Pool, box, rt.Reads)
	deliveries := postgres.NewDeliveries(rt.Pool, box, rt.Reads)
	now := rt.Now
	sender := delivery.Sender{Client: safehttp.NewClient(policy, cfg.DeliveryTimeout, cfg.DeliveryConcurrency), Now: now}
	// joined runs a use case's work in the transaction its ctx carries (the consumer's), without
	// a savepoint; uow begins one of its own.
	uow, joined, outbox := pgkit.Transactor{DB: rt.Pool}, pgkit.Transactor{DB: rt.Pool, Join: true}, events.Outbox{}
	slots, err := app.NewAccountSlots(cfg.DeliveryAccountConcurrency)
	if err != nil {
		return nil, err
	}
	// The delivery path, top-down: Plan hands each new delivery to the dispatcher (or, while it
	// stops, to a job); the dispatcher and RunJob (the job workers' use case) call Deliver;
	// HandOver gives the dispatcher's leftovers to jobs.
	metrics := delivery.Metrics{}
	deliver := app.Deliver{Store: deliveries, Attempts: app.NewAttemptLog(deliveries, uow, queue), Sender: sender, Policy: cfg.RetryPolicy(), Now: now}
	handOver := app.HandOver{Tx: uow, Claims: deliveries, Jobs: queue}
	dispatcher, err := app.NewDispatcher(deliver, handOver, app.DispatchConfig{
		Workers: cfg.DeliveryConcurrency, Backlog: dispatchBacklog, BacklogWait: dispatchWait, AttemptTimeout: cfg.DeliveryTimeout, Slots: slots, Metrics: metrics,
	})
	if err != nil {
		return nil, err
	}
	plan := app.PlanDeliveries{Tx: joined, Subscribers: subscriptions, Deliveries: deliveries, Jobs: queue,
		Dispatcher: dispatcher, AfterCommit: pgkit.AfterCommit, Now: now}
	a := app.Application{
		ReceiveInbound: app.ReceiveInbound{Secrets: accounts, Inbox: inbox, Throttle: inboundlimit.Throttle{Limiter: rt.Limiter}, Now: now},
		RotateSecret:   app.RotateSecret{Secrets: accounts},
		ProjectAccount: app.ProjectAccount{Accounts: accounts},
		Hooks:          app.Hooks{Store: subscriptions, Deliveries: deliveries, Tx: uow, Jobs: queue, Policy: policy, Now: now},
		KnowLead:       app.KnowLead{Leads: inbox},
		ForwardLead:    app.NewForwardLead(plan),
		ForwardHealth:  app.NewForwardHealthCritical(plan),
		RunJob:         app.RunJob{Deliver: deliver, Slots: slots, Metrics: metrics},
		HandOver:       handOver,
		Prune:          app.Prune{Stores: []app.Pruner{deliveries, payments}, Retention: cfg.LogRetention, Now: now},
		ReceivePayment: app.ReceivePayment{Tx: uow, Payments: payments, Outbox: outbox, Planner: plan},
	}
	if err := platform.Wired(a); err != nil {
		return nil, err
	}
	jobTimeout := app.JobTimeout(cfg.DeliveryTimeout)
	jcfg := ports.JobConfig{
		Queue: delivery.QueueName, Concurrency: cfg.DeliveryConcurrency, JobTimeout: jobTimeout,
		Retries:      app.JobRetries{Policy: cfg.RetryPolicy(), RescueAfter: jobTimeout + app.RescueMargin, Now: now},
		PollInterval: cfg.DeliveryPollInterval, FetchCooldown: cfg.DeliveryCooldown,
	}
	workers, err := ports.NewJobWorkers(rt.Pool, a.RunJob, a.Prune, jcfg)
	if err != nil {
		return nil, err
	}
	return &Service{Runtime: rt, App: a, Subscriptions: subscriptions, Workers: workers, Dispatcher: dispatcher,
		stripeSecret: cfg.StripeWebhookSecret, jobTimeout: jobTimeout}, nil
}

// Close releases the service's dependencies.
func (s *Service) Close() { s.Runtime.Close() }

// Migrate applies the service's migrations, the events outbox tables and River's tables, and
// seals the signing secrets still in plaintext or under an old encryption key.
func (s *Service) Migrate(ctx context.Context) error {
	if err := s.Runtime.Migrate(ctx, migrations.Source); err != nil {
		return err
	}
	if err := delivery.Migrate(ctx, s.Runtime.Pool); err != nil {
		return err
	}
	n, err := s.Subscriptions.CanonicalizeHookURLs(ctx)
	if n > 0 {
		slog.InfoContext(ctx, "hook URLs stored as written were canonicalized", "subscriptions", n)
	}
	if err != nil {
		return err
	}
	return s.sealSecrets(ctx)
}

// secretSealing is how often each replica looks for signing secrets to (re)seal: a replica of the
// previous version may still write plaintext ones during a rollout.
const secretSealing = time.Hour

func (s *Service) sealSecrets(ctx context.Context) error {
	n, err := s.Subscriptions.SealSecrets(ctx)
	if n > 0 {
		slog.InfoContext(ctx, "subscription secrets sealed with the current encryption key", "subscriptions", n)
	}
	if err != nil {
		return fmt.Errorf("seal subscription secrets: %w", err)
	}
	return nil
}

// EventHandlers are the events integrations consumes.
func (s *Service) EventHandlers() map[string]events.Handler {
	return ports.EventHandlers(s.App)
}

// Handler returns the HTTP routes with the standard middleware.
func (s *Service) Handler() http.Handler {
	r := s.Runtime.APIRouter()
	h := &ports.HTTP{App: s.App, Payments: &ports.StripeWebhook{Secret: s.stripeSecret, Receive: s.App.ReceivePayment},
		ClientIP: s.Runtime.Limiter.ClientIP}
	h.Routes(r, s.Runtime.Middleware())
	return r
}

// Serve runs the HTTP server, the delivery workers, the dispatcher and its claim sweeper, the
// queue depth sampler, the secret sealer (at once, then hourly), the outbox relay and the
// consumers on ln until ctx ends; in-flight deliveries finish before it returns.
func (s *Service) Serve(ctx context.Context, ln net.Listener) error {
	workers := []platform.Worker{{Name: "delivery workers", Run: s.runWorkers},
		{Name: "delivery dispatcher", Run: s.Dispatcher.Run},
		platform.Every("dispatch claim sweeper", app.SweepEvery, s.Dispatcher.Sweep),
		platform.Every("queue depth sampler", delivery.DepthEvery, delivery.DepthSampler{Pool: s.Runtime.Pool, JobTimeout: s.jobTimeout}.Sample),
		platform.Every("secret sealer", secretSealing, s.sealSecrets)}
	return s.Runtime.Serve(ctx, ln, s.Handler(), s.EventHandlers(), workers...)
}

func (s *Service) runWorkers(ctx context.Context) error {
	// River hard-stops when its start context ends; the graceful Stop below lets jobs finish.
	if err := s.Workers.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), workerStopTimeout)
	defer cancel()
	if err := s.Workers.Stop(stopCtx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}

// RotateSecretByEmail issues a new inbound secret for the owner with this email, waiting until
// deadline for identity's account.created to reach our projection.
func RotateSecretByEmail(ctx context.Context, pool *pgxpool.Pool, email string, deadline time.Time) (string, error) {
	accounts := postgres.NewAccounts(pool)
	for {
		accountID, err := accounts.OwnerByEmail(ctx, email)
		if err == nil {
			secret, err := app.RotateSecret{Secrets: accounts}.Handle(ctx, accountID)
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
