// Package service is identity's composition root: it wires adapters into the use cases and the
// use cases into the HTTP and event ports. Tests build the whole service through New too.
package service

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/services/identity/internal/adapters/password"
	"github.com/bizassist/bizassist/services/identity/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/identity/internal/adapters/signer"
	"github.com/bizassist/bizassist/services/identity/internal/adapters/throttle"
	"github.com/bizassist/bizassist/services/identity/internal/app"
	"github.com/bizassist/bizassist/services/identity/internal/ports"
	"github.com/bizassist/bizassist/services/identity/migrations"
)

// Name is the service name: schema, role, consumer group and telemetry label.
const Name = "identity"

// Service is identity, assembled.
type Service struct {
	*platform.Runtime
	Accounts app.Accounts
	Keys     *postgres.KeyStore
	Signer   *signer.Signer
	// HashBudget bounds the memory of password hashing; Hasher hashes within it.
	HashBudget *password.Budget
	Hasher     *password.Hasher

	// App is identity's use cases.
	App app.Application
}

// New opens identity's dependencies and wires the use cases. The caller must call Close.
func New(ctx context.Context, cfg Config) (*Service, error) {
	box, err := sealbox.New(cfg.Sealing)
	if err != nil {
		return nil, err
	}
	rt, err := platform.Open(ctx, Name, cfg.Config)
	if err != nil {
		return nil, err
	}
	now := rt.Now
	accounts := postgres.NewAccountRepository(rt.Pool)
	keys := postgres.NewKeyStore(rt.Pool, box)
	tokens := signer.New(keys, cfg.Auth.Issuer, cfg.Auth.Audience, cfg.KeyReload)
	budget := password.NewBudget(cfg.hashBudgetKiB(), int64(runtime.GOMAXPROCS(0)), cfg.HashWait)
	hasher := password.NewHasher(cfg.Argon2MemoryKiB, cfg.Argon2Iterations, budget)
	failures := throttle.NewLogin(rt.Limiter, rt.Redis, cfg.RateLimit.KeyPrefix, cfg.RateLimit.Timeout)

	uow, outbox := pgkit.Transactor{DB: rt.Pool}, events.Outbox{}
	login, err := app.NewLogin(accounts, outbox, hasher, tokens, failures, now)
	if err != nil {
		rt.Close()
		return nil, err
	}
	apiKeys := postgres.NewAPIKeyRepository(rt.Pool)
	exchange := &app.ExchangeAPIKey{Keys: apiKeys, Accounts: accounts, Tokens: tokens, Now: now}
	rt.Verifier.UseKeyExchanger(exchange) // identity's own routes take keys without calling itself
	a := app.Application{
		Login:          login,
		Verify:         &app.VerifyToken{Accounts: accounts, Tokens: rt.Verifier},
		SignUp:         &app.SignUp{Tx: uow, Accounts: accounts, Outbox: outbox, Hasher: hasher, Tokens: tokens, Now: now},
		ChangePassword: &app.ChangePassword{Accounts: accounts, Keys: apiKeys, Outbox: outbox, Hasher: hasher, Throttle: failures, Now: now},
		CreateKey:      &app.CreateAPIKey{Keys: apiKeys, Now: now},
		ListKeys:       &app.ListAPIKeys{Keys: apiKeys},
		DeleteKey:      &app.DeleteAPIKey{Tx: uow, Keys: apiKeys, Outbox: outbox, Now: now},
		ExchangeKey:    exchange,
		InviteClient:   &app.InviteClient{Accounts: accounts, Outbox: outbox, Now: now},
		AcceptInvite:   &app.AcceptInvitation{Accounts: accounts, Outbox: outbox, Hasher: hasher, Tokens: tokens, Now: now},
		ListClients:    &app.ListClients{Accounts: accounts},
		RecordHealth:   &app.RecordHealth{Accounts: accounts},
		CreateAccount:  &app.CreateAccount{Tx: uow, Accounts: accounts, Outbox: outbox, Hasher: hasher, Now: now},
		SetPlan:        &app.SetPlan{Accounts: accounts, Outbox: outbox, Now: now},
		SetPassword:    &app.SetPassword{Accounts: accounts, Keys: apiKeys, Outbox: outbox, Hasher: hasher, Now: now},
		Disable:        &app.Disable{Accounts: accounts, Outbox: outbox, Now: now},
		CreateClient:   &app.CreateClient{Accounts: accounts, Outbox: outbox, Now: now},
		ApplyPayment:   &app.ApplyPayment{Accounts: accounts, Outbox: outbox, Now: now},

		FindAccount:        &app.FindAccount{Accounts: accounts},
		ListAccounts:       &app.ListAccounts{Accounts: accounts},
		ListSigningKeys:    &app.ListSigningKeys{Keys: keys},
		RotateSigningKey:   &app.RotateSigningKey{Keys: keys, Now: now},
		ResealSigningKeys:  &app.ResealSigningKeys{Keys: keys},
		WithdrawSigningKey: &app.WithdrawSigningKey{Keys: keys, Now: now},
	}
	if err := platform.Wired(a); err != nil {
		rt.Close()
		return nil, err
	}
	return &Service{Runtime: rt, Accounts: accounts, Keys: keys, Signer: tokens, HashBudget: budget, Hasher: hasher, App: a}, nil
}

// Close releases the service's dependencies.
func (s *Service) Close() { s.Runtime.Close() }

// Migrate applies identity's schema, makes sure a signing key exists and seals the keys.
func (s *Service) Migrate(ctx context.Context) error {
	if err := s.Runtime.Migrate(ctx, migrations.Source); err != nil {
		return err
	}
	return s.prepareKeys(ctx)
}

// prepareKeys creates the first signing key if there is none, and seals keys still stored in
// plaintext or sealed under an encryption key other than ENCRYPTION_KEY_ID.
func (s *Service) prepareKeys(ctx context.Context) error {
	if err := s.Keys.EnsureKey(ctx, s.Runtime.Now()); err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	n, err := s.Keys.Reseal(ctx)
	if err != nil {
		return fmt.Errorf("seal signing keys: %w", err)
	}
	if n > 0 {
		slog.InfoContext(ctx, "signing keys sealed with the current encryption key", "keys", n)
	}
	return nil
}

// Handler returns identity's HTTP routes with the standard middleware.
func (s *Service) Handler() http.Handler {
	r := s.Runtime.APIRouter()
	h := &ports.HTTP{App: s.App, Keys: s.Signer, ClientIP: s.Runtime.Limiter.ClientIP, Now: s.Runtime.Now}
	h.Routes(r, s.Runtime.Middleware())
	return r
}

// EventHandlers are the events identity consumes.
func (s *Service) EventHandlers() map[string]events.Handler {
	return ports.EventHandlers(s.App)
}

// Serve runs the HTTP server, the outbox relay and the consumer on ln until ctx ends.
func (s *Service) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.prepareKeys(ctx); err != nil {
		return err
	}
	slog.InfoContext(ctx, "password hashing bounded", "budget_kib", s.HashBudget.SizeKiB(),
		"hash_kib", s.Hasher.MemoryKiB(), "concurrent_hashes", s.HashBudget.Slots(s.Hasher.MemoryKiB()))
	return s.Runtime.Serve(ctx, ln, s.Handler(), s.EventHandlers())
}
