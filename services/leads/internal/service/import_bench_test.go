package service_test

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/catalogfile"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/service"
)

// BenchmarkCatalogImport runs `leads catalog import` in process on the NDJSON file named by
// LEADS_IMPORT_BENCH_FILE (e.g. `catalog-gen -n 100000 -seed 7`), read from memory so the disk is
// not measured. insert loads it into a freshly migrated, empty database each iteration; update
// re-imports it into a database already holding it (every row an in-place update). Both report
// rows/s over the whole import, the closing ANALYZE included. Keep -benchtime small (1x-3x).
func BenchmarkCatalogImport(b *testing.B) {
	path := os.Getenv("LEADS_IMPORT_BENCH_FILE")
	if path == "" {
		b.Skip("set LEADS_IMPORT_BENCH_FILE to a catalog-gen NDJSON file")
	}
	file, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("insert", func(b *testing.B) {
		var rows int
		var spent time.Duration
		for range b.N {
			b.StopTimer()
			pool := pgtest.New(b, service.Name, service.Sources...)
			b.StartTimer()
			start := time.Now()
			rep := importFile(b, pool, file)
			spent += time.Since(start)
			rows += rep.Inserted
			if rep.Inserted != rep.Read-rep.RejectedCount {
				b.Fatalf("inserted %d of %d valid rows", rep.Inserted, rep.Read-rep.RejectedCount)
			}
		}
		b.ReportMetric(float64(rows)/spent.Seconds(), "rows/s")
	})
	b.Run("update", func(b *testing.B) {
		pool := pgtest.New(b, service.Name, service.Sources...)
		importFile(b, pool, file)
		b.ResetTimer()
		var rows int
		start := time.Now()
		for range b.N {
			rep := importFile(b, pool, file)
			rows += rep.Updated
			if rep.Updated != rep.Read-rep.RejectedCount || rep.Inserted != 0 {
				b.Fatalf("re-import inserted %d and updated %d of %d valid rows", rep.Inserted, rep.Updated, rep.Read-rep.RejectedCount)
			}
		}
		b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
	})
}

func importFile(b *testing.B, pool *pgxpool.Pool, file []byte) app.ImportReport {
	b.Helper()
	rows, err := catalogfile.Open(bytes.NewReader(file), "ndjson")
	if err != nil {
		b.Fatal(err)
	}
	rep, err := service.ImportCatalog(context.Background(), pool, rows, func(app.ImportReport) {})
	if err != nil {
		b.Fatal(err)
	}
	return rep
}
