package postgres_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/analytics/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/migrations"
)

// BenchmarkUsageWriter measures durable usage events per second through the group-commit
// writer: each Record returns only after the transaction holding its event committed. 256
// concurrent writers stand in for concurrent HTTP requests.
//
//	go test -run '^$' -bench UsageWriter -benchtime 50000x ./internal/adapters/postgres
func BenchmarkUsageWriter(b *testing.B) {
	pool := pgtest.New(b, "analytics", migrations.Source, events.Migrations)
	w := postgres.NewUsageWriter(pool, postgres.WriterConfig{Workers: 4, MaxBatch: 500, Timeout: 10 * time.Second})
	defer w.Close()
	ctx := context.Background()
	var n atomic.Int64
	b.SetParallelism(128) // x GOMAXPROCS goroutines
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			account := []string{"acc_bench1", "acc_bench2", "acc_bench3", "acc_bench4"}[i%4]
			if _, err := w.Record(ctx, newEvent(b, account, "chat", time.Now()), nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkRecompute100k measures rescoring 100,000 accounts with 30 days of activity each, as
// the hourly sweep does.
//
//	go test -run '^$' -bench Recompute100k -benchtime 1x ./internal/adapters/postgres
func BenchmarkRecompute100k(b *testing.B) {
	const accounts = 100_000
	pool := pgtest.New(b, "analytics", migrations.Source, events.Migrations)
	ctx := context.Background()
	now := time.Now().UTC()
	// Every account: a month of logins every other day, three features, some leads; a tenth of
	// them are clients of a hundred owners.
	for _, sql := range []string{
		`INSERT INTO accounts (account_id, owner_id, email, plan, created_at, last_login_at)
			SELECT 'acc_' || lpad(i::text, 8, '0'),
				CASE WHEN i % 10 = 0 THEN 'acc_' || lpad((i % 100 + 1)::text, 8, '0') END,
				'a' || i || '@x.test', (ARRAY['free','growth','full_stack'])[i % 3 + 1],
				$1::timestamptz - (i % 700) * interval '1 day', $1::timestamptz - (i % 90) * interval '1 day'
			FROM generate_series(1, 100000) AS i`,
		`INSERT INTO activity_daily (account_id, day, kind, n)
			SELECT 'acc_' || lpad(i::text, 8, '0'), ($1::timestamptz - d * interval '1 day')::date, 'login', 1
			FROM generate_series(1, 100000) AS i, generate_series(0, 28, 2) AS d WHERE (i + d) % 3 <> 0`,
		`INSERT INTO usage_daily (account_id, day, feature, uses)
			SELECT 'acc_' || lpad(i::text, 8, '0'), ($1::timestamptz - d * interval '1 day')::date, f, 1 + (i + d) % 5
			FROM generate_series(1, 100000) AS i, generate_series(0, 28, 4) AS d,
				unnest(ARRAY['chat', 'lead_finder', 'lead_scoring']) AS f`,
	} {
		if _, err := pool.Exec(ctx, sql, now); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	store := postgres.NewHealth(pool)
	w := app.Worker{Store: store, Recompute: app.Recompute{Store: store, Models: postgres.NewChurnModels(pool), Outbox: events.Outbox{}, Now: func() time.Time { return now }}, BatchSize: 1000}
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		n, err := w.RecomputeAll(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if n != accounts {
			b.Fatalf("recomputed %d accounts, want %d", n, accounts)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/100k")
	}
}
