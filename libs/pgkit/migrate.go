package pgkit

import (
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Source is a named set of migration files (NNN_description.sql). Libraries that own tables,
// such as events, export a Source; a service migrates its own Source and theirs together.
type Source struct {
	Name string
	FS   fs.FS
}

// EmbeddedSource is the Source of the .sql files in dir of an embedded file system.
func EmbeddedSource(name string, fsys fs.FS, dir string) Source {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // dir is a constant that the caller's embed directive guarantees
	}
	return Source{Name: name, FS: sub}
}

// Migrate creates the schema if needed and applies, in order and each in its own transaction,
// every migration not yet recorded in schema_migrations. Concurrent runs wait on an advisory lock,
// so running it from several replicas at once is safe.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string, sources ...Source) error {
	if !schemaName.MatchString(schema) {
		return fmt.Errorf("schema %q is not a valid identifier", schema)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire: %w", err)
	}
	defer conn.Release()

	lockID := advisoryKey("migrate:" + schema)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockID); err != nil {
		return fmt.Errorf("advisory lock: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockID) }()

	ident := pgx.Identifier{schema}.Sanitize()
	setup := fmt.Sprintf(`CREATE SCHEMA IF NOT EXISTS %[1]s;
		CREATE TABLE IF NOT EXISTS %[1]s.schema_migrations (
			version    text PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now())`, ident)
	if _, err := conn.Exec(ctx, setup); err != nil {
		return fmt.Errorf("prepare schema %s: %w", schema, err)
	}

	applied := map[string]bool{}
	rows, err := conn.Query(ctx, fmt.Sprintf("SELECT version FROM %s.schema_migrations", ident))
	if err != nil {
		return fmt.Errorf("read applied migrations: %w", err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("read applied migrations: %w", err)
	}
	for _, v := range versions {
		applied[v] = true
	}

	for _, src := range sources {
		files, err := fs.Glob(src.FS, "*.sql")
		if err != nil {
			return fmt.Errorf("list migrations of %s: %w", src.Name, err)
		}
		sort.Strings(files)
		for _, f := range files {
			version := src.Name + "/" + strings.TrimSuffix(path.Base(f), ".sql")
			if applied[version] {
				continue
			}
			sql, err := fs.ReadFile(src.FS, f)
			if err != nil {
				return fmt.Errorf("read %s: %w", version, err)
			}
			err = InTx(ctx, conn, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+ident); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, string(sql)); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, fmt.Sprintf("INSERT INTO %s.schema_migrations (version) VALUES ($1)", ident), version)
				return err
			})
			if err != nil {
				return fmt.Errorf("apply migration %s: %w", version, err)
			}
			slog.Info("applied migration", "schema", schema, "version", version)
		}
	}
	return nil
}

// advisoryKey turns a name into a stable advisory-lock key.
func advisoryKey(name string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return int64(h.Sum64()) //nolint:gosec // any 64-bit value is a valid key
}
