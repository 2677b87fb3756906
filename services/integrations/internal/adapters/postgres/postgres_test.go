package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/migrations"
)

// newDB is a fresh schema with one owner account, acc_1, and a helper that runs a statement and
// returns the integer it selects (or 0 for a statement without a result).
func newDB(t *testing.T) (*pgxpool.Pool, func(sql string, args ...any) int) {
	t.Helper()
	pool := pgtest.New(t, "integrations", migrations.Source, events.Migrations)
	require.NoError(t, postgres.NewAccounts(pool).SaveAccount(context.Background(),
		app.NewAccount{AccountID: "acc_1", Email: "a@example.com", Role: "owner"}, domain.HashSecret("s")))
	sqlInt := func(sql string, args ...any) int {
		rows, err := pool.Query(context.Background(), sql, args...)
		require.NoError(t, err)
		defer rows.Close()
		n := 0
		if rows.Next() && len(rows.FieldDescriptions()) > 0 {
			require.NoError(t, rows.Scan(&n))
		}
		require.NoError(t, rows.Err())
		return n
	}
	return pool, sqlInt
}

// jobLog stands in for River and keeps the jobs queued, checking that each is queued in a
// transaction.
type jobLog struct {
	mu   sync.Mutex
	jobs []app.DeliveryJob
}

func (l *jobLog) Enqueue(ctx context.Context, jobs ...app.DeliveryJob) error {
	if _, ok := pgkit.TxFrom(ctx); !ok {
		return errNoTx
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.jobs = append(l.jobs, jobs...)
	return nil
}

func (l *jobLog) queued() []app.DeliveryJob {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]app.DeliveryJob(nil), l.jobs...)
}

var errNoTx = errorString("a job queued outside a transaction")

type errorString string

func (e errorString) Error() string { return string(e) }
