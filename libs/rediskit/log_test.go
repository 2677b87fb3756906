package rediskit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/rediskit"
)

// go-redis's own messages reach slog, as JSON like every other line of a service's log, not
// stderr as plain text. Not parallel: it replaces the process's default logger.
func TestTheClientsOwnMessagesAreLoggedBySlog(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now: every dial is refused
	rdb, err := rediskit.Open(rediskit.Config{URL: "redis://" + addr + "/0", PoolSize: 1, DialTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.Error(t, rdb.Ping(ctx).Err())

	var found bool
	for line := range strings.Lines(buf.String()) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "a log line that is not JSON: %q", line)
		if rec["msg"] == "redis client" && strings.Contains(rec["detail"].(string), "failed to dial") {
			found = true
		}
	}
	require.True(t, found, "go-redis's dial failure is not in the slog output: %s", buf.String())
}
