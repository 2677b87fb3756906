// Package pgtest gives each test its own throwaway PostgreSQL database on the real server, so
// tests run in parallel against real SQL without touching each other's rows.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
)

// AdminURL is the server used for tests; override with TEST_DATABASE_URL.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// Database is a fresh database created for one test and dropped when it ends.
type Database struct {
	URL  string
	Name string
}

// NewDatabase creates an empty database and registers its removal.
func NewDatabase(t testing.TB) Database {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v (is PostgreSQL running?)", AdminURL(), err)
	}
	defer admin.Close(ctx)

	buf := make([]byte, 6)
	_, _ = rand.Read(buf)
	name := "t_" + hex.EncodeToString(buf)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, AdminURL())
		if err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
		}
	})
	u, err := url.Parse(AdminURL())
	if err != nil {
		t.Fatalf("pgtest: parse admin url: %v", err)
	}
	u.Path = "/" + name
	return Database{URL: u.String(), Name: name}
}

// New creates a fresh database, migrates schema with the given sources, and returns a pool whose
// search path is that schema. The pool is closed when the test ends.
func New(t testing.TB, schema string, sources ...pgkit.Source) *pgxpool.Pool {
	t.Helper()
	db := NewDatabase(t)
	return Open(t, db, schema, sources...)
}

// Open connects to db with schema on the search path, migrating it first.
func Open(t testing.TB, db Database, schema string, sources ...pgkit.Source) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := Config(db, schema)
	pool, err := pgkit.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("pgtest: open: %v", err)
	}
	t.Cleanup(pool.Close)
	if err := pgkit.Migrate(ctx, pool, schema, sources...); err != nil {
		t.Fatalf("pgtest: migrate: %v", err)
	}
	return pool
}

// Before is the migrations of fsys (*.sql) named below version: a schema as it was before that
// migration, for a test that upgrades it with the rest as a deployment of new code does.
func Before(t testing.TB, fsys fs.FS, version string) fs.FS {
	t.Helper()
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	older := fstest.MapFS{}
	for _, name := range names {
		if name >= version {
			continue
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		older[name] = &fstest.MapFile{Data: data}
	}
	return older
}

// Config is a pgkit.Config for db and schema with test-sized limits.
func Config(db Database, schema string) pgkit.Config {
	return pgkit.Config{URL: db.URL, Schema: schema, MaxConns: 20, MinConns: 0,
		ConnectTimeout: 5 * time.Second, StatementTimeout: 30 * time.Second, MaxConnLifetime: time.Hour}
}

// Describe returns a short label for failure messages.
func (d Database) String() string { return fmt.Sprintf("pgtest database %s", d.Name) }

// Restricted returns db as a new role holding only the grants a service's role is documented to
// need (charts/README.md, "Database roles"): CONNECT and CREATE on the database (CREATE SCHEMA IF
// NOT EXISTS and trusted extensions check the latter) and the schema, owned. PUBLIC's default
// grants on db, TEMPORARY among them, are revoked. The role is dropped when the test ends.
func Restricted(t testing.TB, db Database, schema string) Database {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", db, err)
	}
	defer admin.Close(ctx)
	role := "r" + db.Name
	ident := pgx.Identifier{role}.Sanitize()
	for _, sql := range []string{
		"REVOKE ALL ON DATABASE " + db.Name + " FROM PUBLIC",
		"CREATE ROLE " + ident + " LOGIN",
		"GRANT CONNECT, CREATE ON DATABASE " + db.Name + " TO " + ident,
		"CREATE SCHEMA " + pgx.Identifier{schema}.Sanitize() + " AUTHORIZATION " + ident,
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("pgtest: %s: %v", sql, err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, db.URL)
		if err != nil {
			t.Logf("pgtest: drop role %s: %v", role, err)
			return
		}
		defer c.Close(ctx)
		// The role's objects go first (they are all in db), then the role, before db itself.
		for _, sql := range []string{"DROP OWNED BY " + ident, "DROP ROLE " + ident} {
			if _, err := c.Exec(ctx, sql); err != nil {
				t.Logf("pgtest: %s: %v", sql, err)
			}
		}
	})
	u, err := url.Parse(db.URL)
	if err != nil {
		t.Fatalf("pgtest: parse %s: %v", db, err)
	}
	u.User = url.User(role)
	return Database{URL: u.String(), Name: db.Name}
}
