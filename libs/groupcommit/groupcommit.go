// Package groupcommit runs the writes of concurrent callers together, so many callers share one
// transaction and one WAL flush. It holds no database code: the batch function opens the unit of
// work, so a use case can group its own writes through its ports.
package groupcommit

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Group runs the items of concurrent callers together (group commit): a caller that finds no
// batch running runs one with every item queued so far, up to max; the others wait for the batch
// that holds theirs. One transaction, and one WAL flush, then serves many callers, and each is
// answered only after its item's batch has run. Batches run in the callers' goroutines, so a
// Group needs no start or stop.
type Group[T any] struct {
	max     int
	timeout time.Duration
	run     func(ctx context.Context, items []T) error

	mu      sync.Mutex
	queue   []*groupCall[T]
	running bool
}

type groupCall[T any] struct {
	item T
	done chan error
}

// errLead hands the running of the next batch to a waiting caller.
var errLead = errors.New("groupcommit: lead the next batch")

// New returns a group whose batches hold at most max items and each run within timeout.
// run must apply all items or none (one transaction); when a batch of several fails, each of
// its items is run alone, so one bad item fails only its own caller.
func New[T any](max int, timeout time.Duration, run func(ctx context.Context, items []T) error) *Group[T] {
	if max < 1 || timeout <= 0 || run == nil {
		panic("groupcommit.New: max and timeout must be positive and run set") // a programming error, caught at start
	}
	return &Group[T]{max: max, timeout: timeout, run: run}
}

// Do queues item and returns when the batch holding it has run. It waits for that batch even
// when ctx ends first: the item is queued and will be applied, and the group's timeout bounds
// the wait.
func (g *Group[T]) Do(ctx context.Context, item T) error {
	c := &groupCall[T]{item: item, done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	lead := !g.running
	g.running = true
	g.mu.Unlock()
	for {
		if lead {
			g.runNext(ctx)
		}
		err := <-c.done
		if !errors.Is(err, errLead) {
			return err
		}
		lead = true
	}
}

// Queued is how many items wait for a batch to take them.
func (g *Group[T]) Queued() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// runNext runs one batch from the head of the queue, then hands the next batch to the first
// caller still waiting, so no caller runs more than the batch it leads.
func (g *Group[T]) runNext(ctx context.Context) {
	g.mu.Lock()
	n := min(len(g.queue), g.max)
	batch := make([]*groupCall[T], n)
	copy(batch, g.queue)
	g.queue = g.queue[n:]
	g.mu.Unlock()

	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.timeout)
	defer cancel()
	items := make([]T, len(batch))
	for i, c := range batch {
		items[i] = c.item
	}
	err := g.run(bctx, items)
	for _, c := range batch {
		if err != nil && len(batch) > 1 {
			c.done <- g.run(bctx, []T{c.item})
			continue
		}
		c.done <- err
	}

	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) == 0 {
		g.running = false
		return
	}
	g.queue[0].done <- errLead
}
