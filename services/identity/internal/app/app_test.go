package app_test

import (
	"context"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/services/identity/internal/app"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return now }

// memRepo is an in-memory Accounts, and the outbox and unit of work that go with it:
// it records published events and drops those of a unit of work that fails.
type memRepo struct {
	mu       sync.Mutex
	accounts map[string]account.Snapshot
	events   []contracts.Event
}

func newMemRepo() *memRepo { return &memRepo{accounts: map[string]account.Snapshot{}} }

func (r *memRepo) Publish(_ context.Context, evs ...contracts.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, evs...)
	return nil
}

func (r *memRepo) InTx(ctx context.Context, fn func(context.Context) error) error {
	r.mu.Lock()
	published := len(r.events)
	r.mu.Unlock()
	if err := fn(ctx); err != nil {
		r.mu.Lock()
		r.events = r.events[:published]
		r.mu.Unlock()
		return err
	}
	return nil
}

func (r *memRepo) Create(_ context.Context, a *account.Account) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.accounts {
		if s.Email == a.Email() && s.Role == a.Role() && s.OwnerID == a.OwnerID() {
			return account.ErrEmailTaken
		}
	}
	r.accounts[a.ID()] = a.Snapshot()
	return nil
}

func (r *memRepo) ByID(_ context.Context, id string) (*account.Account, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.accounts[id]
	if !ok {
		return nil, account.ErrNotFound
	}
	return account.FromSnapshot(s), nil
}

func (r *memRepo) OwnerByEmail(_ context.Context, email string) (*account.Account, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.accounts {
		if s.Email == email && s.Role == account.RoleOwner {
			return account.FromSnapshot(s), nil
		}
	}
	return nil, account.ErrNotFound
}

func (r *memRepo) SignInByEmail(_ context.Context, email string) (*account.Account, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.accounts {
		if s.Email == email && s.PasswordHash != "" {
			return account.FromSnapshot(s), nil
		}
	}
	return nil, account.ErrNotFound
}

func (r *memRepo) ClientByEmail(_ context.Context, ownerID, email string) (*account.Account, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.accounts {
		if s.Email == email && s.OwnerID == ownerID {
			return account.FromSnapshot(s), nil
		}
	}
	return nil, account.ErrNotFound
}

func (r *memRepo) CountClients(_ context.Context, ownerID string) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.accounts {
		if s.OwnerID == ownerID && s.Status != account.StatusDisabled {
			n++
		}
	}
	return n, nil
}

func (r *memRepo) IDByInvitation(_ context.Context, hash string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.accounts {
		if s.InviteHash == hash {
			return s.ID, nil
		}
	}
	return "", account.ErrNotFound
}

func (r *memRepo) Update(ctx context.Context, id string, fn func(context.Context, *account.Account) error) (*account.Account, error) {
	a, err := r.ByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := r.InTx(ctx, func(ctx context.Context) error { return fn(ctx, a) }); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for other, s := range r.accounts {
		if other != id && s.PasswordHash != "" && s.Email == a.Email() && a.PasswordHash() != "" {
			return nil, account.ErrEmailTaken
		}
	}
	r.accounts[id] = a.Snapshot()
	return a, nil
}

func (r *memRepo) List(_ context.Context, f account.ListFilter) ([]*account.Account, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*account.Account
	for _, s := range r.accounts {
		if (f.OwnerID == "" && s.Role == account.RoleOwner) || (f.OwnerID != "" && s.OwnerID == f.OwnerID) {
			out = append(out, account.FromSnapshot(s))
		}
	}
	return out, nil
}

func (r *memRepo) eventTypes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Type)
	}
	return out
}

// plainHasher "hashes" by prefixing "h:" (an "old:" prefix is a hash with outdated parameters),
// counts comparisons, and while busy has no hashing capacity.
type plainHasher struct {
	verifies int
	busy     bool
}

func (h *plainHasher) Hash(_ context.Context, p string) (string, error) {
	if h.busy {
		return "", app.ErrHashingBusy
	}
	return "h:" + p, nil
}

func (h *plainHasher) Verify(_ context.Context, p, hash string) (bool, error) {
	if h.busy {
		return false, app.ErrHashingBusy
	}
	h.verifies++
	return hash == "h:"+p || hash == "old:"+p, nil
}

func (h *plainHasher) Outdated(hash string) bool { return !strings.HasPrefix(hash, "h:") }

func (h *plainHasher) Unmatchable() (string, error) { return "unmatchable", nil }

type fixedIssuer struct{}

func (fixedIssuer) Issue(_ context.Context, a *account.Account, at time.Time) (app.IssuedToken, error) {
	return app.IssuedToken{Value: "token-for-" + a.ID(), ExpiresAt: a.TokenIssuedAt(at).Add(24 * time.Hour)}, nil
}

func (fixedIssuer) IssueForKey(_ context.Context, a *account.Account, keyID string, at time.Time) (app.IssuedToken, error) {
	return app.IssuedToken{Value: "token-for-" + a.ID() + "-" + keyID, ExpiresAt: a.TokenIssuedAt(at).Add(10 * time.Minute)}, nil
}

// throttle refuses everything when refuse is set and counts what it is told.
type throttle struct {
	refuse              bool
	failures, successes int
}

func (t *throttle) Admit(context.Context, netip.Addr, string) error {
	if t.refuse {
		return apperr.New(apperr.KindRateLimited, apperr.CodeRateLimited, "slow down")
	}
	return nil
}

func (t *throttle) Failed(context.Context, netip.Addr, string) error {
	t.failures++
	return nil
}

func (t *throttle) Succeeded(context.Context, netip.Addr, string) error {
	t.successes++
	return nil
}

type fixture struct {
	login    *app.Login
	repo     *memRepo
	hasher   *plainHasher
	throttle *throttle
}

func setup(t *testing.T, refuse bool) fixture {
	t.Helper()
	f := fixture{repo: newMemRepo(), hasher: &plainHasher{}, throttle: &throttle{refuse: refuse}}
	create := &app.CreateAccount{Tx: f.repo, Accounts: f.repo, Outbox: f.repo, Hasher: f.hasher, Now: clock}
	_, err := create.Handle(context.Background(), app.CreateAccountCommand{Email: "a@example.com", Password: "a long password", Plan: "growth"})
	require.NoError(t, err)
	f.login, err = app.NewLogin(f.repo, f.repo, f.hasher, fixedIssuer{}, f.throttle, clock)
	require.NoError(t, err)
	f.hasher.verifies = 0
	return f
}

func TestLoginIssuesATokenAndRecordsTheLogin(t *testing.T) {
	t.Parallel()
	f := setup(t, false)
	res, err := f.login.Handle(context.Background(), app.LoginCommand{Email: "A@Example.com", Password: "a long password"})
	require.NoError(t, err)
	require.Equal(t, "a@example.com", res.Email)
	require.Equal(t, account.PlanGrowth, res.Plan)
	require.Equal(t, now.Add(24*time.Hour), res.ExpiresAt)
	require.Equal(t, []string{identityevents.AccountCreated, identityevents.AccountLogin}, f.repo.eventTypes())
	require.Equal(t, 1, f.throttle.successes)
	require.Zero(t, f.throttle.failures, "a success is not a failure")
}

func TestUnknownEmailCostsAPasswordComparisonToo(t *testing.T) {
	t.Parallel()
	f := setup(t, false)
	_, err := f.login.Handle(context.Background(), app.LoginCommand{Email: "nobody@example.com", Password: "whatever"})
	require.ErrorIs(t, err, app.ErrInvalidCredentials)
	require.Equal(t, 1, f.hasher.verifies, "an unknown email is compared against the dummy hash")
	require.Equal(t, []string{identityevents.AccountCreated}, f.repo.eventTypes(), "no login event")
	require.Equal(t, 1, f.throttle.failures)
}

func TestWrongPasswordCountsAFailure(t *testing.T) {
	t.Parallel()
	f := setup(t, false)
	_, err := f.login.Handle(context.Background(), app.LoginCommand{Email: "a@example.com", Password: "not the password"})
	require.ErrorIs(t, err, app.ErrInvalidCredentials)
	require.Equal(t, 1, f.throttle.failures)
	require.Zero(t, f.throttle.successes)
}

func TestThrottledLoginChecksNothing(t *testing.T) {
	t.Parallel()
	f := setup(t, true)
	_, err := f.login.Handle(context.Background(), app.LoginCommand{Email: "a@example.com", Password: "a long password"})
	require.Equal(t, apperr.KindRateLimited, apperr.KindOf(err))
	require.Zero(t, f.hasher.verifies)
}

func TestBusyHashingIsUnavailableNotAFailure(t *testing.T) {
	t.Parallel()
	f := setup(t, false)
	f.hasher.busy = true
	for _, email := range []string{"a@example.com", "nobody@example.com"} {
		_, err := f.login.Handle(context.Background(), app.LoginCommand{Email: email, Password: "a long password"})
		require.ErrorIs(t, err, app.ErrHashingBusy, email)
		require.Equal(t, apperr.KindUnavailable, apperr.KindOf(err), email)
	}
	require.Zero(t, f.throttle.failures, "nobody was checked, so nobody failed")
}

func TestLoginRehashesAnOutdatedHashWithTheLogin(t *testing.T) {
	t.Parallel()
	f := setup(t, false)
	old, err := account.NewOwner("acc_old", "old@example.com", "old:a long password", account.PlanFree, "", now)
	require.NoError(t, err)
	require.NoError(t, f.repo.Create(context.Background(), old))

	_, err = f.login.Handle(context.Background(), app.LoginCommand{Email: "old@example.com", Password: "a long password"})
	require.NoError(t, err)
	a, err := f.repo.ByID(context.Background(), "acc_old")
	require.NoError(t, err)
	require.Equal(t, "h:a long password", a.PasswordHash(), "stored with the current parameters")
	require.Equal(t, []string{identityevents.AccountCreated, identityevents.AccountLogin}, f.repo.eventTypes())
}

func TestPaymentEventsOnlyMoveOwnersToKnownPlans(t *testing.T) {
	t.Parallel()
	repo := newMemRepo()
	owner, err := account.NewOwner("acc_o", "o@example.com", "h:x", account.PlanFree, "", now)
	require.NoError(t, err)
	require.NoError(t, repo.Create(context.Background(), owner))
	pay := &app.ApplyPayment{Accounts: repo, Outbox: repo, Now: clock}
	plan := func() account.Plan {
		a, err := repo.ByID(context.Background(), "acc_o")
		require.NoError(t, err)
		return a.Plan()
	}
	ctx := context.Background()

	require.NoError(t, pay.Handle(ctx, app.ApplyPaymentCommand{Type: "customer.subscription.updated", AccountID: "acc_o", Plan: "growth", Status: "past_due"}))
	require.Equal(t, account.PlanFree, plan(), "a subscription that is not active changes nothing")
	require.NoError(t, pay.Handle(ctx, app.ApplyPaymentCommand{Type: "checkout.session.completed", AccountID: "acc_o", Plan: "platinum"}))
	require.Equal(t, account.PlanFree, plan(), "an unknown plan changes nothing")
	require.NoError(t, pay.Handle(ctx, app.ApplyPaymentCommand{Type: "customer.subscription.updated", AccountID: "acc_o", Plan: "full stack", Status: "active"}))
	require.Equal(t, account.PlanFullStack, plan())
	require.NoError(t, pay.Handle(ctx, app.ApplyPaymentCommand{Type: "invoice.payment_failed", AccountID: "acc_o"}))
	require.Equal(t, account.PlanFullStack, plan(), "a failed payment alone does not downgrade")
	require.NoError(t, pay.Handle(ctx, app.ApplyPaymentCommand{Type: "customer.subscription.deleted", AccountID: "acc_o"}))
	require.Equal(t, account.PlanFree, plan())
	require.NoError(t, pay.Handle(ctx, app.ApplyPaymentCommand{Type: "customer.subscription.deleted", AccountID: "acc_unknown"}))
	require.Equal(t, []string{identityevents.AccountPlanChanged, identityevents.AccountPlanChanged}, repo.eventTypes())
}
