package app

import (
	"context"
	"time"
)

// Pruner deletes a log's rows older than a cutoff (finished deliveries with their attempts,
// processed payment-event ids), at most limit rows per call.
type Pruner interface {
	Prune(ctx context.Context, before time.Time, limit int) (int, error)
}

// pruneBatch keeps one prune transaction short.
const pruneBatch = 5000

// Prune keeps the delivery log and the payment dedup table to the retention period.
type Prune struct {
	Stores    []Pruner
	Retention time.Duration
	Now       Clock
}

// Handle prunes in batches until nothing older than the retention is left, and says how many
// rows went.
func (h Prune) Handle(ctx context.Context) (int, error) {
	before := h.Now().Add(-h.Retention)
	total := 0
	for _, store := range h.Stores {
		for {
			n, err := store.Prune(ctx, before, pruneBatch)
			total += n
			if err != nil {
				return total, err
			}
			if n < pruneBatch {
				break
			}
		}
	}
	return total, nil
}
