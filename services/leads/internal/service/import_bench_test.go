package service_test

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/catalogfile"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
	"github.com/bizassist/bizassist/services/leads/internal/service"
	"github.com/bizassist/bizassist/services/leads/migrations"
)

// BenchmarkCatalogImport runs `leads catalog import` in process on the NDJSON file named by
// LEADS_IMPORT_BENCH_FILE (e.g. `catalog-gen -n 100000 -seed 7`), read from memory so the disk is
// not measured, and reports rows/s over whole imports (the closing ANALYZE included):
//   - insert: into a freshly migrated, empty database each iteration;
//   - update: into a database holding the file, with every row's listedAt moved on a second, so
//     every row changes;
//   - unchanged: the file again into a database holding it;
//   - validate: reading and validating only, the rows dropped instead of written (the ceiling the
//     process itself puts on the import).
//
// Keep -benchtime small (1x-3x); each iteration imports the whole file.
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
			pool := pgtest.New(b, service.Name, append([]pgkit.Source{migrations.Source}, platform.Shared...)...)
			b.StartTimer()
			start := time.Now()
			rep := importFile(b, pool, file, 0)
			spent += time.Since(start)
			rows += rep.Inserted
			if rep.Inserted != rep.Read-rep.RejectedCount {
				b.Fatalf("inserted %d of %d valid rows", rep.Inserted, rep.Read-rep.RejectedCount)
			}
		}
		b.ReportMetric(float64(rows)/spent.Seconds(), "rows/s")
	})
	reimport := func(b *testing.B, shift func(iteration int) time.Duration) {
		pool := pgtest.New(b, service.Name, append([]pgkit.Source{migrations.Source}, platform.Shared...)...)
		importFile(b, pool, file, 0)
		b.ResetTimer()
		var rows int
		for i := range b.N {
			rep := importFile(b, pool, file, shift(i))
			rows += rep.Updated
			if rep.Updated != rep.Read-rep.RejectedCount || rep.Inserted != 0 {
				b.Fatalf("re-import inserted %d and updated %d of %d valid rows", rep.Inserted, rep.Updated, rep.Read-rep.RejectedCount)
			}
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("update", func(b *testing.B) {
		reimport(b, func(i int) time.Duration { return time.Duration(i+1) * time.Second })
	})
	b.Run("unchanged", func(b *testing.B) {
		reimport(b, func(int) time.Duration { return 0 })
	})
	b.Run("validate", func(b *testing.B) {
		var rows int
		for range b.N {
			rd, err := catalogfile.Open(bytes.NewReader(file), "ndjson")
			if err != nil {
				b.Fatal(err)
			}
			store := &countingStore{}
			if _, err := (app.ImportCatalog{Store: store, Now: time.Now}).Handle(context.Background(), rd, func(app.ImportReport) {}); err != nil {
				b.Fatal(err)
			}
			rows += store.rows
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	})
}

// countingStore counts the rows it is given and writes none of them.
type countingStore struct{ rows int }

func (s *countingStore) Upsert(_ context.Context, bs []catalog.Business) (int, int, error) {
	s.rows += len(bs)
	return len(bs), 0, nil
}

// importFile imports file with every row's listedAt moved by shift (none when 0).
func importFile(b *testing.B, pool *pgxpool.Pool, file []byte, shift time.Duration) app.ImportReport {
	b.Helper()
	rows, err := catalogfile.Open(bytes.NewReader(file), "ndjson")
	if err != nil {
		b.Fatal(err)
	}
	if shift != 0 {
		rows = shiftedRows{rows, shift}
	}
	rep, err := service.ImportCatalog(context.Background(), pool, rows, func(app.ImportReport) {})
	if err != nil {
		b.Fatal(err)
	}
	return rep
}

// shiftedRows moves each row's listedAt by a fixed time, so that a re-import changes every row.
type shiftedRows struct {
	app.CatalogRows
	by time.Duration
}

func (s shiftedRows) Next() (app.CatalogRow, error) {
	row, err := s.CatalogRows.Next()
	if err == nil && row.Input.ListedAt != nil {
		moved := row.Input.ListedAt.Add(s.by)
		row.Input.ListedAt = &moved
	}
	return row, err
}
