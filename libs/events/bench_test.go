package events

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
)

// BenchmarkRelay measures outbox-to-stream throughput: each op is one event enqueued in its own
// transaction and published by the relay in batches of the default size.
func BenchmarkRelay(b *testing.B) {
	pool := pgtest.New(b, "bench", Migrations)
	rdb, prefix := redistest.New(b)
	relay := NewRelay(pool, rdb, RelayConfig{StreamPrefix: strings.TrimSuffix(prefix, ":")})
	ctx := context.Background()

	b.ResetTimer()
	for range b.N {
		e, err := New(ctx, "usage.recorded", "acc_1", map[string]string{"feature": "chat"})
		require.NoError(b, err)
		require.NoError(b, pgkit.InTx(ctx, pool, func(tx pgx.Tx) error { return Enqueue(ctx, tx, e) }))
	}
	for published := 0; published < b.N; {
		n, err := relay.PublishBatch(ctx)
		require.NoError(b, err)
		published += n
	}
}
