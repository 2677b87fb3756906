package postgres_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
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
// concurrent writers stand in for concurrent HTTP requests. It reports the p99 of one Record too.
//
//	go test -run '^$' -bench UsageWriter -benchtime 50000x ./internal/adapters/postgres
func BenchmarkUsageWriter(b *testing.B) { benchUsageWriter(b, 0) }

// BenchmarkUsageWriter1M is BenchmarkUsageWriter with 1,000,000 events already in the table
// (make bench-scale, issue 31): the p99 should not move from the empty table's.
func BenchmarkUsageWriter1M(b *testing.B) { benchUsageWriter(b, 1_000_000) }

func benchUsageWriter(b *testing.B, prefill int) {
	pool := pgtest.New(b, "analytics", migrations.Source, events.Migrations)
	ctx := context.Background()
	if prefill > 0 {
		// A month of events of 10,000 accounts, as the writer would have stored them.
		if _, err := pool.Exec(ctx, `INSERT INTO usage_events (event_id, account_id, feature, action, uses, meta, source, occurred_at)
			SELECT 'evt_fill_' || i, 'acc_fill_' || (i % 10000), (ARRAY['chat','lead_finder','lead_scoring'])[i % 3 + 1],
				'send_message', 1, '{"n":1}', 'api', now() - (i % 43200) * interval '1 minute'
			FROM generate_series(1, $1::int) AS i`, prefill); err != nil {
			b.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) usage_events`); err != nil {
			b.Fatal(err)
		}
	}
	w := postgres.NewUsageWriter(pool, postgres.WriterConfig{Workers: 4, MaxBatch: 500, Timeout: 10 * time.Second})
	defer w.Close()
	var (
		n   atomic.Int64
		mu  sync.Mutex
		lat []time.Duration
	)
	b.SetParallelism(128) // x GOMAXPROCS goroutines
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			i := n.Add(1)
			account := []string{"acc_bench1", "acc_bench2", "acc_bench3", "acc_bench4"}[i%4]
			t0 := time.Now()
			if _, err := w.Record(ctx, newEvent(b, account, "chat", time.Now()), nil); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
	if len(lat) > 0 {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[(len(lat)*99+99)/100-1].Microseconds())/1000, "p99-ms")
	}
}

// BenchmarkRecompute100k measures rescoring 100,000 accounts with 30 days of activity each, as
// the hourly sweep does.
//
//	go test -run '^$' -bench Recompute100k -benchtime 1x ./internal/adapters/postgres
func BenchmarkRecompute100k(b *testing.B) { benchRecompute(b, 100_000, "s/100k") }

// BenchmarkRecompute1M is the same at 1,000,000 accounts (make bench-scale, issue 31; aim under
// 60 s with memory bounded). Both report the benchmark process's peak resident memory (the
// sweep's; PostgreSQL's is its own).
func BenchmarkRecompute1M(b *testing.B) { benchRecompute(b, 1_000_000, "s/1M") }

func benchRecompute(b *testing.B, accounts int, unit string) {
	pool := pgtest.New(b, "analytics", migrations.Source, events.Migrations)
	ctx := context.Background()
	now := time.Now().UTC()
	// Every account: a month of logins every other day, three features, some leads; a tenth of
	// them are clients of a hundred owners. Seeded a slice of accounts per statement: at 1M the
	// usage rows alone are 24M, past the pool's statement timeout in one statement.
	const slice = 100_000
	for _, sql := range []string{
		`INSERT INTO accounts (account_id, owner_id, email, plan, created_at, last_login_at)
			SELECT 'acc_' || lpad(i::text, 8, '0'),
				CASE WHEN i % 10 = 0 THEN 'acc_' || lpad((i % 100 + 1)::text, 8, '0') END,
				'a' || i || '@x.test', (ARRAY['free','growth','full_stack'])[i % 3 + 1],
				$1::timestamptz - (i % 700) * interval '1 day', $1::timestamptz - (i % 90) * interval '1 day'
			FROM generate_series($2::int, $3::int) AS i`,
		`INSERT INTO activity_daily (account_id, day, kind, n)
			SELECT 'acc_' || lpad(i::text, 8, '0'), ($1::timestamptz - d * interval '1 day')::date, 'login', 1
			FROM generate_series($2::int, $3::int) AS i, generate_series(0, 28, 2) AS d WHERE (i + d) % 3 <> 0`,
		`INSERT INTO usage_daily (account_id, day, feature, uses)
			SELECT 'acc_' || lpad(i::text, 8, '0'), ($1::timestamptz - d * interval '1 day')::date, f, 1 + (i + d) % 5
			FROM generate_series($2::int, $3::int) AS i, generate_series(0, 28, 4) AS d,
				unnest(ARRAY['chat', 'lead_finder', 'lead_scoring']) AS f`,
	} {
		for first := 1; first <= accounts; first += slice {
			if _, err := pool.Exec(ctx, sql, now, first, min(first+slice-1, accounts)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	store := postgres.NewHealth(pool)
	w := app.Worker{Store: store, Recompute: recomputeAt(pool, store, func() time.Time { return now }), BatchSize: 1000}
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
		b.ReportMetric(time.Since(start).Seconds(), unit)
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB") // Maxrss is in KiB on Linux
	}
}
