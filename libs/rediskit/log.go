package rediskit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/redis/go-redis/v9"
)

// clientLog sends go-redis's own messages (a dial that failed, a pool that gave up on a node) to
// slog: a service's log is one JSON object a line, and go-redis's default logger writes plain
// text to stderr in between.
type clientLog struct{}

func (clientLog) Printf(ctx context.Context, format string, v ...any) {
	slog.WarnContext(ctx, "redis client", "detail", fmt.Sprintf(format, v...))
}

var logToSlog sync.Once

// useSlog routes go-redis's process-wide logger to slog; Open calls it.
func useSlog() { logToSlog.Do(func() { redis.SetLogger(clientLog{}) }) }
