package httpx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
)

// TestDatabaseOutagesAre503WithRetryAfter: errors of a real PostgreSQL that is restarting (its
// backends terminated by an administrator) or refusing connections are 503 unavailable with
// Retry-After, not 500, so clients and the ingress know to retry; a bad statement stays 500.
func TestDatabaseOutagesAre503WithRetryAfter(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	terminated := func() error { // what a running query meets during pg_ctl restart (57P01)
		conn, err := pgx.Connect(ctx, pgtest.AdminURL())
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "SELECT pg_terminate_backend(pg_backend_pid())")
		require.Error(t, err)
		return fmt.Errorf("find leads: %w", err)
	}()
	closedConn := func() error { // the next use of a connection the server dropped
		conn, err := pgx.Connect(ctx, pgtest.AdminURL())
		require.NoError(t, err)
		require.NoError(t, conn.Close(ctx))
		_, err = conn.Exec(ctx, "SELECT 1")
		require.Error(t, err)
		return err
	}()
	refused := func() error { // a new connection while the server is down
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		pool, err := pgxpool.New(ctx, "postgres://postgres@"+addr+"/postgres?sslmode=disable&connect_timeout=2")
		require.NoError(t, err)
		defer pool.Close()
		_, err = pool.Exec(ctx, "SELECT 1")
		require.Error(t, err)
		return err
	}()
	badSQL := func() error {
		conn, err := pgx.Connect(ctx, pgtest.AdminURL())
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "SELECT * FROM no_such_table")
		require.Error(t, err)
		return err
	}()

	for name, tc := range map[string]struct {
		err    error
		status int
	}{
		"admin shutdown": {terminated, 503}, "closed connection": {closedConn, 503},
		"connection refused": {refused, 503}, "bad statement": {badSQL, 500},
	} {
		rec := httptest.NewRecorder()
		httpx.Fail(rec, httptest.NewRequest(http.MethodGet, "/x", nil), tc.err)
		require.Equal(t, tc.status, rec.Code, "%s: %v", name, tc.err)
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		require.Equal(t, false, body["ok"], name)
		if tc.status == 503 {
			require.Equal(t, "unavailable", body["code"], name)
			require.Equal(t, "2", rec.Header().Get("Retry-After"), name)
		} else {
			require.Equal(t, "internal", body["code"], name)
			require.Empty(t, rec.Header().Get("Retry-After"), name)
		}
	}
}
