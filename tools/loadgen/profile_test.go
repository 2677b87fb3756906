package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/rediskit"
)

// The profiler reads the real servers' counters: work done between Start and stop shows up.
func TestProfilerCountsServerWork(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "run"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "svc.env"),
		[]byte("DATABASE_URL=postgres://svc@127.0.0.1:5432/postgres?sslmode=disable\n"), 0o644))
	p, err := NewProfiler("", dir, rediskit.Config{URL: "redis://127.0.0.1:6379/0", PoolSize: 1})
	require.NoError(t, err)

	ctx := context.Background()
	stop, err := p.Start(ctx, "t", time.Second)
	require.NoError(t, err)
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	for range 5 {
		require.NoError(t, rdb.Echo(ctx, "loadgen profiler test").Err())
	}
	c, err := stop()
	require.NoError(t, err)
	require.GreaterOrEqual(t, c["redis echo"], int64(5))
	require.Positive(t, c["pg commits"], "the profiler's own snapshot is a transaction")

	var out bytes.Buffer
	require.NoError(t, reportCounts(&out, []countRow{{"t", "request", 5, c}}))
	require.Contains(t, out.String(), "redis commands")
	require.Regexp(t, `(?m)^\s+t\s+request\s`, out.String())
}

func TestNewProfilerNeedsTheStacksEnvironment(t *testing.T) {
	_, err := NewProfiler("", t.TempDir(), rediskit.Config{URL: "redis://127.0.0.1:6379/0", PoolSize: 1})
	require.ErrorContains(t, err, "run make up")
}
