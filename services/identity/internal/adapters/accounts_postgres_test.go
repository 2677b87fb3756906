package adapters_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/identity/internal/adapters"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
	"github.com/bizassist/bizassist/services/identity/migrations"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newRepo(t *testing.T) (*adapters.AccountRepository, func(string) int) {
	t.Helper()
	pool := pgtest.New(t, "identity", events.Migrations, migrations.Source)
	outboxCount := func(typ string) int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE type = $1`, typ).Scan(&n))
		return n
	}
	return adapters.NewAccountRepository(pool), outboxCount
}

func owner(t *testing.T, id, email string) *account.Account {
	t.Helper()
	a, err := account.NewOwner(id, email, "hash", account.PlanGrowth, "Biz", now)
	require.NoError(t, err)
	return a
}

func TestCreateStoresTheAccountAndItsEventsTogether(t *testing.T) {
	t.Parallel()
	repo, outbox := newRepo(t)
	ctx := context.Background()
	a := owner(t, "acc_1", "a@example.com")
	require.NoError(t, repo.Create(ctx, a, account.Event{Type: "account.created", AccountID: "acc_1", Data: map[string]string{"x": "y"}}))

	got, err := repo.OwnerByEmail(ctx, "a@example.com")
	require.NoError(t, err)
	require.Equal(t, a.Snapshot(), got.Snapshot())
	require.Equal(t, 1, outbox("account.created"))

	err = repo.Create(ctx, owner(t, "acc_2", "a@example.com"), account.Event{Type: "account.created", AccountID: "acc_2"})
	require.ErrorIs(t, err, account.ErrEmailTaken)
	require.Equal(t, 1, outbox("account.created"), "a refused create leaves no event")
}

func TestClientEmailsAreUniquePerOwner(t *testing.T) {
	t.Parallel()
	repo, _ := newRepo(t)
	ctx := context.Background()
	o1, o2 := owner(t, "acc_o1", "o1@example.com"), owner(t, "acc_o2", "o2@example.com")
	require.NoError(t, repo.Create(ctx, o1))
	require.NoError(t, repo.Create(ctx, o2))

	client := func(id string, o *account.Account) *account.Account {
		c, err := account.NewClient(id, o, account.ClientDetails{Email: "shop@example.com", BusinessName: "Shop"}, now)
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
	repo, outbox := newRepo(t)
	ctx := context.Background()
	require.NoError(t, repo.Create(ctx, owner(t, "acc_1", "a@example.com")))

	boom := errors.New("boom")
	_, err := repo.Update(ctx, "acc_1", func(a *account.Account) ([]account.Event, error) {
		_, _ = a.ChangePlan(account.PlanFree, now)
		return []account.Event{{Type: "account.plan_changed", AccountID: "acc_1"}}, boom
	})
	require.ErrorIs(t, err, boom)
	got, err := repo.ByID(ctx, "acc_1")
	require.NoError(t, err)
	require.Equal(t, account.PlanGrowth, got.Plan())
	require.Zero(t, outbox("account.plan_changed"))

	_, err = repo.Update(ctx, "acc_1", func(a *account.Account) ([]account.Event, error) {
		_, _ = a.ChangePlan(account.PlanFullStack, now)
		return []account.Event{{Type: "account.plan_changed", AccountID: "acc_1"}}, nil
	})
	require.NoError(t, err)
	got, err = repo.ByID(ctx, "acc_1")
	require.NoError(t, err)
	require.Equal(t, account.PlanFullStack, got.Plan())
	require.Equal(t, 1, outbox("account.plan_changed"))

	_, err = repo.Update(ctx, "acc_missing", func(*account.Account) ([]account.Event, error) { return nil, nil })
	require.ErrorIs(t, err, account.ErrNotFound)
}

func TestConcurrentUpdatesSerialise(t *testing.T) {
	t.Parallel()
	repo, outbox := newRepo(t)
	ctx := context.Background()
	require.NoError(t, repo.Create(ctx, owner(t, "acc_1", "a@example.com")))

	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := repo.Update(ctx, "acc_1", func(a *account.Account) ([]account.Event, error) {
				return []account.Event{{Type: "account.login", AccountID: a.ID()}}, nil
			})
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	require.Equal(t, n, outbox("account.login"))
}
