package platform

import (
	"context"
	"log/slog"
	"time"
)

// Every is a Worker that runs fn at once and then every interval until its context ends. A
// failed run is logged and the next one happens on schedule, so periodic housekeeping and metric
// sampling survive a passing database error.
func Every(name string, interval time.Duration, fn func(context.Context) error) Worker {
	return Worker{Name: name, Run: func(ctx context.Context) error {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if err := fn(ctx); err != nil && ctx.Err() == nil {
				slog.ErrorContext(ctx, "periodic work failed", "worker", name, "error", err)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
		}
	}}
}
