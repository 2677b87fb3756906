package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
	"github.com/bizassist/bizassist/services/leads/migrations"
)

func newDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	return pgtest.New(t, "leads", migrations.Source, events.Migrations)
}

func business(t *testing.T, mutate func(*catalog.BusinessInput)) catalog.Business {
	t.Helper()
	in := catalog.BusinessInput{ID: "b1", Name: "Acme Plumbing", Owner: "Ann Lee", Email: "ann@acmeplumbing.com",
		Phone: "512-472-3000", Website: "acmeplumbing.com", Vertical: "plumbing", Categories: []string{"plumber"},
		City: "Austin", State: "TX", ZIP: "78701", Source: "organic"}
	mutate(&in)
	b, err := catalog.NewBusiness(in, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	return b
}

func load(t *testing.T, pool *pgxpool.Pool, bs ...catalog.Business) {
	t.Helper()
	_, _, err := NewCatalogWriter(pool).Upsert(context.Background(), bs)
	require.NoError(t, err)
}

func outboxCount(t *testing.T, pool *pgxpool.Pool, typ string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox WHERE type = $1", typ).Scan(&n))
	return n
}

func phoneN(i int) string { return fmt.Sprintf("+1512472%04d", i) }
