package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/identity/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
	"github.com/bizassist/bizassist/services/identity/migrations"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// newRepo returns a repository on a fresh database holding accounts, and the outbox counter.
func newRepo(t *testing.T, accounts ...*account.Account) (*postgres.AccountRepository, func(string) int) {
	t.Helper()
	repo, _, outbox := newRepoAndPool(t)
	for _, a := range accounts {
		require.NoError(t, repo.Create(context.Background(), a))
	}
	return repo, outbox
}

func newRepoAndPool(t *testing.T) (*postgres.AccountRepository, *pgxpool.Pool, func(string) int) {
	t.Helper()
	pool := pgtest.New(t, "identity", events.Migrations, migrations.Source)
	outboxCount := func(typ string) int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE type = $1`, typ).Scan(&n))
		return n
	}
	return postgres.NewAccountRepository(pool), pool, outboxCount
}

// publish is what a use case does inside Update's fn: it publishes through the outbox in the
// transaction fn's ctx carries.
func publish(ctx context.Context, typ, accountID string) error {
	return events.Outbox{}.Publish(ctx, contracts.Event{Type: typ, AccountID: accountID})
}

func owner(t *testing.T, id, email string) *account.Account {
	t.Helper()
	a, err := account.NewOwner(id, email, "hash", account.PlanGrowth, "Biz", now)
	require.NoError(t, err)
	return a
}

func TestCreateJoinsTheUnitOfWorkOfItsEvents(t *testing.T) {
	t.Parallel()
	repo, pool, outbox := newRepoAndPool(t)
	ctx := context.Background()
	uow := pgkit.Transactor{DB: pool}
	createAndPublish := func(a *account.Account) error {
		return uow.InTx(ctx, func(ctx context.Context) error {
			if err := repo.Create(ctx, a); err != nil {
				return err
			}
			return publish(ctx, "account.created", a.ID())
		})
	}
	a := owner(t, "acc_1", "a@example.com")
	require.NoError(t, createAndPublish(a))

	got, err := repo.OwnerByEmail(ctx, "a@example.com")
	require.NoError(t, err)
	require.Equal(t, a.Snapshot(), got.Snapshot())
	require.Equal(t, 1, outbox("account.created"))

	require.ErrorIs(t, createAndPublish(owner(t, "acc_2", "a@example.com")), account.ErrEmailTaken)
	require.Equal(t, 1, outbox("account.created"), "a refused create leaves no event")

	boom := errors.New("boom")
	err = uow.InTx(ctx, func(ctx context.Context) error {
		require.NoError(t, repo.Create(ctx, owner(t, "acc_3", "c@example.com")))
		return boom
	})
	require.ErrorIs(t, err, boom)
	_, err = repo.ByID(ctx, "acc_3")
	require.ErrorIs(t, err, account.ErrNotFound, "the create rolled back with its unit of work")
}

func TestClientEmailsAreUniquePerOwner(t *testing.T) {
	t.Parallel()
	o1, o2 := owner(t, "acc_o1", "o1@example.com"), owner(t, "acc_o2", "o2@example.com")
	repo, _ := newRepo(t, o1, o2)
	ctx := context.Background()

	client := func(id string, o *account.Account) *account.Account {
		c, err := account.NewClient(id, o, account.ClientDetails{Email: "shop@example.com", BusinessName: "Shop"}, "hash-"+id, now)
		require.NoError(t, err)
		return c
	}
	require.NoError(t, repo.Create(ctx, client("acc_c1", o1)))
	require.NoError(t, repo.Create(ctx, client("acc_c2", o2)), "another owner may have a client with the same email")
	require.ErrorIs(t, repo.Create(ctx, client("acc_c3", o1)), account.ErrEmailTaken)

	list, err := repo.List(ctx, account.ListFilter{OwnerID: "acc_o1"})
	require.NoError(t, err)
	require.Len(t, list, 1)
	_, err = repo.OwnerByEmail(ctx, "shop@example.com")
	require.ErrorIs(t, err, account.ErrNotFound, "clients are not owners")
}

func TestUpdateIsAllOrNothing(t *testing.T) {
	t.Parallel()
	repo, outbox := newRepo(t, owner(t, "acc_1", "a@example.com"))
	ctx := context.Background()

	planOf := func() account.Plan {
		got, err := repo.ByID(ctx, "acc_1")
		require.NoError(t, err)
		return got.Plan()
	}
	boom := errors.New("boom")
	_, err := repo.Update(ctx, "acc_1", func(ctx context.Context, a *account.Account) error {
		_, _ = a.ChangePlan(account.PlanFree, now)
		require.NoError(t, publish(ctx, "account.plan_changed", "acc_1"))
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, account.PlanGrowth, planOf())
	require.Zero(t, outbox("account.plan_changed"))

	_, err = repo.Update(ctx, "acc_1", func(ctx context.Context, a *account.Account) error {
		_, _ = a.ChangePlan(account.PlanFullStack, now)
		return publish(ctx, "account.plan_changed", "acc_1")
	})
	require.NoError(t, err)
	require.Equal(t, account.PlanFullStack, planOf())
	require.Equal(t, 1, outbox("account.plan_changed"))

	_, err = repo.Update(ctx, "acc_missing", func(context.Context, *account.Account) error { return nil })
	require.ErrorIs(t, err, account.ErrNotFound)
}

func TestConcurrentUpdatesSerialise(t *testing.T) {
	t.Parallel()
	repo, outbox := newRepo(t, owner(t, "acc_1", "a@example.com"))
	ctx := context.Background()

	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := repo.Update(ctx, "acc_1", func(ctx context.Context, a *account.Account) error {
				return publish(ctx, "account.login", a.ID())
			})
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	require.Equal(t, n, outbox("account.login"))
}
