package pgkit_test

import (
	"context"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/rediskit"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
)

func TestWithoutReplicaEveryReadGoesToThePrimary(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "app")
	reads, err := pgkit.OpenReplica(context.Background(), pgtest.Config(pgtest.Database{URL: "unused"}, "app"),
		pgkit.ReplicaConfig{}, pool, nil)
	require.NoError(t, err)
	require.Same(t, pool, reads.Pool())
	require.Same(t, pool, reads.For(context.Background(), "acc_1"))
	require.NoError(t, reads.Run(context.Background()), "nothing to measure")
}

// replicaURL is TEST_DATABASE_REPLICA_PORT's replica of db (make up PG_REPLICA=1 starts one).
func replicaURL(t *testing.T, db pgtest.Database) string {
	t.Helper()
	port := os.Getenv("TEST_DATABASE_REPLICA_PORT")
	if port == "" {
		t.Skip("TEST_DATABASE_REPLICA_PORT is not set (a streaming replica of the test server)")
	}
	u, err := url.Parse(db.URL)
	require.NoError(t, err)
	u.Host = u.Hostname() + ":" + port
	return u.String()
}

// The replica serves reads within the lag bound, except the reads of a key that just wrote; when
// replay stops, reads fall back to the primary once the lag passes the bound, and return after.
func TestReplicaReadsWithinTheLagBound(t *testing.T) {
	db := pgtest.NewDatabase(t)
	pool := pgtest.Open(t, db, "app")
	ctx := context.Background()
	_, err := pool.Exec(ctx, "CREATE TABLE app.notes (account text, body text)")
	require.NoError(t, err)
	rdb, prefix := redistest.New(t)
	cfg := pgkit.ReplicaConfig{URL: replicaURL(t, db), MaxLag: 500 * time.Millisecond, MaxConns: 2}
	reads, err := pgkit.OpenReplica(ctx, pgtest.Config(db, "app"), cfg, pool, rediskit.Recent{RDB: rdb, Prefix: prefix})
	require.NoError(t, err)
	t.Cleanup(reads.Close)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- reads.Run(runCtx) }()
	t.Cleanup(func() { stop(); require.NoError(t, <-done) })

	require.Eventually(t, func() bool { return reads.Pool() != pool }, 10*time.Second, 50*time.Millisecond, "the replica catches up")
	lag, inUse := reads.Lag()
	require.True(t, inUse)
	require.LessOrEqual(t, lag, cfg.MaxLag)
	var recovering bool
	require.NoError(t, reads.Pool().QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&recovering))
	require.True(t, recovering, "Pool is the standby")

	reads.Wrote(ctx, "acc_w")
	_, err = pool.Exec(ctx, "INSERT INTO app.notes VALUES ('acc_w', 'hello')")
	require.NoError(t, err)
	var n int
	require.NoError(t, reads.For(ctx, "acc_w").QueryRow(ctx, "SELECT count(*) FROM app.notes WHERE account = 'acc_w'").Scan(&n))
	require.Equal(t, 1, n, "read-your-writes: the writer reads the primary")
	require.Same(t, pool, reads.For(ctx, "acc_w"))
	require.NotSame(t, pool, reads.For(ctx, "acc_other"))

	// Pause replay on the standby (as its superuser) and keep writing: the lag grows past the bound.
	admin, err := pgx.Connect(ctx, replicaAdminURL(t, cfg.URL))
	require.NoError(t, err)
	defer admin.Close(ctx)
	_, err = admin.Exec(ctx, "SELECT pg_wal_replay_pause()")
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "SELECT pg_wal_replay_resume()") })
	require.Eventually(t, func() bool {
		_, err := pool.Exec(ctx, "INSERT INTO app.notes VALUES ('acc_x', 'tick')")
		require.NoError(t, err)
		return reads.Pool() == pool
	}, 10*time.Second, 100*time.Millisecond, "past the bound, reads go to the primary")
	lag, inUse = reads.Lag()
	require.False(t, inUse)
	require.Greater(t, lag, cfg.MaxLag)

	_, err = admin.Exec(ctx, "SELECT pg_wal_replay_resume()")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return reads.Pool() != pool }, 10*time.Second, 50*time.Millisecond, "back to the replica")
}

func replicaAdminURL(t *testing.T, replica string) string {
	t.Helper()
	u, err := url.Parse(replica)
	require.NoError(t, err)
	u.User, u.Path = url.User("postgres"), "/postgres"
	return u.String()
}
