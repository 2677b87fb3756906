package pgkit_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
)

var widgets = pgkit.Source{Name: "widgets", FS: fstest.MapFS{
	"001_widgets.sql":     {Data: []byte(`CREATE TABLE widgets (id int PRIMARY KEY, name text NOT NULL);`)},
	"002_widget_note.sql": {Data: []byte(`ALTER TABLE widgets ADD COLUMN note text;`)},
}}

func TestMigrateIsIdempotentAndConcurrentSafe(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	pool := pgtest.Open(t, db, "shop", widgets)
	ctx := context.Background()

	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- pgkit.Migrate(ctx, pool, "shop", widgets) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM shop.schema_migrations").Scan(&n))
	require.Equal(t, 2, n)
	_, err := pool.Exec(ctx, "INSERT INTO widgets (id, name, note) VALUES (1, 'a', 'lands in shop schema')")
	require.NoError(t, err)
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM shop.widgets").Scan(&n))
	require.Equal(t, 1, n)
}

func TestFailedMigrationLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	bad := pgkit.Source{Name: "bad", FS: fstest.MapFS{
		"001_half.sql": {Data: []byte(`CREATE TABLE half (id int); SELECT no_such_function();`)},
	}}
	db := pgtest.NewDatabase(t)
	pool := pgtest.Open(t, db, "shop")
	err := pgkit.Migrate(context.Background(), pool, "shop", bad)
	require.Error(t, err)

	var exists bool
	require.NoError(t, pool.QueryRow(context.Background(),
		"SELECT to_regclass('shop.half') IS NOT NULL").Scan(&exists))
	require.False(t, exists, "a failed migration must roll back whole")
}

func TestInTxRollsBackOnError(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "shop", widgets)
	ctx := context.Background()
	boom := errors.New("boom")
	err := pgkit.InTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO widgets (id, name) VALUES (1, 'x')"); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM widgets").Scan(&n))
	require.Zero(t, n)
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	require.Error(t, pgkit.Config{URL: "postgres://x", Schema: "Bad-Name", MaxConns: 1}.Validate())
	require.Error(t, pgkit.Config{URL: "postgres://x", Schema: "ok", MaxConns: 0}.Validate())
}

func TestWorkJoinsTheTransactionInTheContext(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "shop", widgets)
	ctx := context.Background()
	insert := func(ctx context.Context, id int) error {
		return pgkit.InTx(ctx, pool, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO widgets (id, name) VALUES ($1, 'w')", id)
			return err
		})
	}
	count := func() int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM widgets").Scan(&n))
		return n
	}

	boom := errors.New("outer fails after the inner work succeeded")
	err := pgkit.InTx(ctx, pool, func(tx pgx.Tx) error {
		inner := pgkit.WithTx(ctx, tx)
		require.NoError(t, insert(inner, 1))
		var seen int
		require.NoError(t, pgkit.Q(inner, pool).QueryRow(inner, "SELECT count(*) FROM widgets").Scan(&seen))
		require.Equal(t, 1, seen, "reads through Q see the outer transaction's writes")
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Zero(t, count(), "the joined work rolled back with the outer transaction")

	require.NoError(t, pgkit.InTx(ctx, pool, func(tx pgx.Tx) error {
		inner := pgkit.WithTx(ctx, tx)
		require.NoError(t, insert(inner, 2))
		require.Error(t, insert(inner, 2), "a duplicate key fails inside its savepoint")
		return nil
	}))
	require.Equal(t, 1, count(), "a failed savepoint does not poison the outer transaction")
}

func TestTransactorHandsItsTransactionOnThroughTheContext(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "shop", widgets)
	ctx := context.Background()
	uow := pgkit.Transactor{DB: pool}
	insert := func(ctx context.Context, id int) error {
		_, err := pgkit.Q(ctx, pool).Exec(ctx, "INSERT INTO widgets (id, name) VALUES ($1, 'w')", id)
		return err
	}
	count := func() int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM widgets").Scan(&n))
		return n
	}

	_, ok := pgkit.TxFrom(ctx)
	require.False(t, ok)
	boom := errors.New("boom")
	err := uow.InTx(ctx, func(ctx context.Context) error {
		_, ok := pgkit.TxFrom(ctx)
		require.True(t, ok, "fn's ctx carries the transaction")
		require.NoError(t, insert(ctx, 1))
		require.NoError(t, uow.InTx(ctx, func(ctx context.Context) error { return insert(ctx, 2) }), "nested: a savepoint")
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Zero(t, count(), "both writes rolled back with the unit of work")

	require.NoError(t, uow.InTx(ctx, func(ctx context.Context) error { return insert(ctx, 3) }))
	require.Equal(t, 1, count())
}

func TestAfterCommitRunsOnlyForWorkThatCommitted(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	pool := pgtest.Open(t, db, "shop", widgets)
	ctx := context.Background()
	var ran []string
	hook := func(ctx context.Context, name string) {
		t.Helper()
		require.NoError(t, pgkit.AfterCommit(ctx, func() { ran = append(ran, name) }))
	}
	uow := pgkit.Transactor{DB: pool}
	boom := errors.New("boom")

	err := uow.InTx(ctx, func(ctx context.Context) error {
		hook(ctx, "outer")
		require.Empty(t, ran, "a hook waits for the commit")
		require.NoError(t, uow.InTx(ctx, func(ctx context.Context) error { hook(ctx, "released savepoint"); return nil }))
		require.ErrorIs(t, uow.InTx(ctx, func(ctx context.Context) error { hook(ctx, "rolled-back savepoint"); return boom }), boom)
		require.Empty(t, ran, "a released savepoint's hook waits for the outer commit")
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"outer", "released savepoint"}, ran)

	ran = nil
	require.ErrorIs(t, uow.InTx(ctx, func(ctx context.Context) error { hook(ctx, "rolled back"); return boom }), boom)
	require.Empty(t, ran)

	hook(ctx, "no transaction")
	require.Equal(t, []string{"no transaction"}, ran, "without a transaction the writes are in: the hook runs at once")

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	require.Error(t, pgkit.AfterCommit(pgkit.WithTx(ctx, tx), func() {}), "a transaction InTx did not begin cannot report its commit")
}

func TestJoinTxRunsInTheCallersTransactionAndAFailureDoomsIt(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	pool := pgtest.Open(t, db, "shop", widgets)
	ctx := context.Background()
	count := func() int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM widgets`).Scan(&n))
		return n
	}
	insert := func(id int) func(pgx.Tx) error {
		return func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO widgets (id, name) VALUES ($1, 'w')`, id)
			return err
		}
	}
	uow := pgkit.Transactor{DB: pool}
	joined := pgkit.Transactor{DB: pool, Join: true}

	require.NoError(t, pgkit.JoinTx(ctx, pool, insert(1)), "without a transaction it opens its own")
	require.Equal(t, 1, count())

	require.NoError(t, uow.InTx(ctx, func(ctx context.Context) error {
		outer, _ := pgkit.TxFrom(ctx)
		return joined.InTx(ctx, func(ctx context.Context) error {
			inner, _ := pgkit.TxFrom(ctx)
			require.Same(t, outer, inner, "no savepoint: the caller's transaction itself")
			return pgkit.JoinTx(ctx, pool, insert(2))
		})
	}))
	require.Equal(t, 2, count())

	boom := errors.New("boom")
	err := uow.InTx(ctx, func(ctx context.Context) error {
		require.NoError(t, pgkit.JoinTx(ctx, pool, insert(3)))
		require.ErrorIs(t, pgkit.JoinTx(ctx, pool, func(pgx.Tx) error { return boom }), boom)
		return nil // a caller that swallows the failure still cannot commit the half-done work
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, 2, count(), "nothing of the doomed transaction was committed")
}

// InTxWith's first statements share the transaction with fn's work: both commit, or neither.
func TestInTxWithBeginsWithTheFirstStatements(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "shop", widgets)
	ctx := context.Background()
	count := func() int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM widgets").Scan(&n))
		return n
	}
	first := func(id int) *pgx.Batch {
		b := &pgx.Batch{}
		b.Queue("INSERT INTO widgets (id, name) VALUES ($1, 'first') RETURNING id", id)
		return b
	}
	var got int
	read := func(br pgx.BatchResults) error { return br.QueryRow().Scan(&got) }
	hooked := false
	err := pgkit.InTxWith(ctx, pool, first(1), read, func(tx pgx.Tx) error {
		require.NoError(t, pgkit.AfterCommit(pgkit.WithTx(ctx, tx), func() { hooked = true }))
		var inTx int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM widgets WHERE id = 1").Scan(&inTx); err != nil {
			return err
		}
		require.Equal(t, 1, inTx, "fn sees the first statements' writes")
		_, err := tx.Exec(ctx, "INSERT INTO widgets (id, name) VALUES (2, 'then')")
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 1, got)
	require.Equal(t, 2, count())
	require.True(t, hooked, "after-commit hooks run")

	boom := errors.New("boom")
	require.ErrorIs(t, pgkit.InTxWith(ctx, pool, first(3), read, func(pgx.Tx) error { return boom }), boom)
	require.Equal(t, 2, count(), "fn failed: the first statements roll back with it")
	require.Error(t, pgkit.InTxWith(ctx, pool, first(1), read, func(pgx.Tx) error { return nil }), "a first statement fails")
	require.Equal(t, 2, count())
	require.ErrorIs(t, pgkit.InTxWith(ctx, pool, first(4), func(pgx.BatchResults) error { return boom }, func(pgx.Tx) error { return nil }), boom)
	require.Equal(t, 2, count(), "read failed: nothing commits")

	err = pgkit.InTx(ctx, pool, func(tx pgx.Tx) error {
		return pgkit.InTxWith(pgkit.WithTx(ctx, tx), pool, first(5), read, func(pgx.Tx) error { return nil })
	})
	require.ErrorContains(t, err, "carries one already")
}
