package app

import (
	"context"
	"time"
)

// Pruner deletes finished deliveries (their attempts go with them) and processed payment-event
// ids older than a cutoff, at most limit rows per call.
type Pruner interface {
	Prune(ctx context.Context, before time.Time, limit int) (int, error)
}

// pruneBatch keeps one prune transaction short.
const pruneBatch = 5000

// Prune keeps the delivery log and the payment dedup table to the retention period.
type Prune struct {
	Store     Pruner
	Retention time.Duration
	Now       Clock
}

// Handle prunes in batches until nothing older than the retention is left, and says how many
// rows went.
func (h Prune) Handle(ctx context.Context) (int, error) {
	before := h.Now().Add(-h.Retention)
	total := 0
	for {
		n, err := h.Store.Prune(ctx, before, pruneBatch)
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}
