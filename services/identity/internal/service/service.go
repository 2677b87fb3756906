// Package service is identity's composition root: it wires adapters into the use cases and the
// use cases into the HTTP and event ports. Tests build the whole service through New too.
package service

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/services/identity/internal/adapters"
	"github.com/bizassist/bizassist/services/identity/internal/app"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
	"github.com/bizassist/bizassist/services/identity/internal/ports"
	"github.com/bizassist/bizassist/services/identity/migrations"
)

// Name is the service name: schema, role, consumer group and telemetry label.
const Name = "identity"

// Service is identity, assembled.
type Service struct {
	*platform.Runtime
	Accounts account.Repository
	Keys     *adapters.KeyStore
	Signer   *adapters.Signer
	// HashBudget bounds the memory of password hashing; Hasher hashes within it.
	HashBudget *adapters.HashBudget
	Hasher     *adapters.Argon2Hasher

	Login          *app.Login
	Verify         *app.VerifyToken
	SignUp         *app.SignUp
	ChangePassword *app.ChangePassword
	CreateKey      *app.CreateAPIKey
	ListKeys       *app.ListAPIKeys
	DeleteKey      *app.DeleteAPIKey
	ExchangeKey    *app.ExchangeAPIKey
	InviteClient   *app.InviteClient
	AcceptInvite   *app.AcceptInvitation
	ListClients    *app.ListClients
	RecordHealth   *app.RecordHealth
	CreateAccount  *app.CreateAccount
	SetPlan        *app.SetPlan
	SetPassword    *app.SetPassword
	Disable        *app.Disable
	CreateClient   *app.CreateClient
	ApplyPayment   *app.ApplyPayment
	// The operators' command line: finding and listing accounts, and the signing keys.
	FindAccount        *app.FindAccount
	ListAccounts       *app.ListAccounts
	ListSigningKeys    *app.ListSigningKeys
	RotateSigningKey   *app.RotateSigningKey
	ResealSigningKeys  *app.ResealSigningKeys
	WithdrawSigningKey *app.WithdrawSigningKey

	now app.Clock
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
	now := func() time.Time { return time.Now().UTC() }
	accounts := adapters.NewAccountRepository(rt.Pool)
	keys := adapters.NewKeyStore(rt.Pool, box)
	signer := adapters.NewSigner(keys, cfg.Auth.Issuer, cfg.Auth.Audience, cfg.KeyReload)
	budget := adapters.NewHashBudget(cfg.hashBudgetKiB(), cfg.HashWait)
	hasher := adapters.NewArgon2Hasher(cfg.Argon2MemoryKiB, cfg.Argon2Iterations, budget)
	throttle := adapters.NewLoginThrottle(rt.Limiter, rt.Redis, cfg.RateLimit.KeyPrefix, cfg.RateLimit.Timeout)

	uow, outbox := pgkit.Transactor{DB: rt.Pool}, events.Outbox{}
	login, err := app.NewLogin(ctx, accounts, outbox, hasher, signer, throttle, now)
	if err != nil {
		rt.Close()
		return nil, err
	}
	apiKeys := adapters.NewAPIKeyRepository(rt.Pool)
	exchange := &app.ExchangeAPIKey{Keys: apiKeys, Accounts: accounts, Tokens: signer, Now: now}
	rt.Verifier.UseKeyExchanger(exchange) // identity's own routes take keys without calling itself
	return &Service{
		Runtime: rt, Accounts: accounts, Keys: keys, Signer: signer, HashBudget: budget, Hasher: hasher,
		Login:          login,
		Verify:         &app.VerifyToken{Accounts: accounts, Tokens: rt.Verifier},
		SignUp:         &app.SignUp{Tx: uow, Accounts: accounts, Outbox: outbox, Hasher: hasher, Tokens: signer, Now: now},
		ChangePassword: &app.ChangePassword{Accounts: accounts, Keys: apiKeys, Outbox: outbox, Hasher: hasher, Throttle: throttle, Now: now},
		CreateKey:      &app.CreateAPIKey{Keys: apiKeys, Now: now},
		ListKeys:       &app.ListAPIKeys{Keys: apiKeys},
		DeleteKey:      &app.DeleteAPIKey{Tx: uow, Keys: apiKeys, Outbox: outbox, Now: now},
		ExchangeKey:    exchange,
		InviteClient:   &app.InviteClient{Accounts: accounts, Outbox: outbox, Now: now},
		AcceptInvite:   &app.AcceptInvitation{Accounts: accounts, Outbox: outbox, Hasher: hasher, Tokens: signer, Now: now},
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
		now:                now,
	}, nil
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
	if err := s.Keys.EnsureKey(ctx, s.now()); err != nil {
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
	r := s.Runtime.Router()
	h := &ports.HTTP{Login: s.Login, Verify: s.Verify, SignUp: s.SignUp, ChangePassword: s.ChangePassword,
		CreateKey: s.CreateKey, ListKeys: s.ListKeys, DeleteKey: s.DeleteKey, ExchangeKey: s.ExchangeKey,
		InviteClient: s.InviteClient, AcceptInvite: s.AcceptInvite, ListClients: s.ListClients,
		Keys: s.Signer, ClientIP: s.Runtime.Limiter.ClientIP, Now: s.now}
	h.Routes(r, s.Runtime.Middleware())
	return r
}

// EventHandlers are the events identity consumes.
func (s *Service) EventHandlers() map[string]events.Handler {
	return ports.EventHandlers(s.CreateClient, s.ApplyPayment, s.RecordHealth)
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
