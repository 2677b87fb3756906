package ports

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
)

// claimSlack is how much longer than one attempt a dispatched delivery stays claimed: an attempt
// starts only while at least half of it is left, which covers recording the attempt, and the
// other half bounds how long a delivery waits in the dispatcher's backlog.
const claimSlack = 30 * time.Second

// Bounds of the hand-over to queued jobs: a batch per transaction, and how many expired claims
// one sweep takes at a time.
const (
	handoffBatch = 500
	sweepBatch   = 1000
	// SweepEvery is how often each replica looks for expired claims; with the claim it bounds
	// how long a delivery waits after its process died.
	SweepEvery = 5 * time.Second
)

// DispatchConfig sizes a Dispatcher.
type DispatchConfig struct {
	Workers        int           // attempts at once
	Backlog        int           // deliveries waiting for a worker; beyond it they go to queued jobs
	AttemptTimeout time.Duration // the sender's timeout
	Slots          *AccountSlots // shared with the queued jobs' workers
}

// Dispatcher is the inbound port that makes the first attempt of each delivery planned in this
// process (app.PlanDeliveries hands it the deliveries as their transaction commits), without a
// queued job: a job is a row inserted, fetched and completed, and most first attempts succeed.
// Each attempt is a Deliver.Attempt. A delivery it cannot attempt in time (its backlog is full,
// its account has its share in flight, the process stops) it hands to a queued job
// (app.HandOver); one it never gets to (the process died) is handed over by any replica's Sweep
// once its claim runs out. Retries are always queued jobs.
type Dispatcher struct {
	deliver  app.Deliver
	jobs     app.HandOver // what it will not attempt goes to queued jobs
	cfg      DispatchConfig
	queue    chan dispatched
	stopping atomic.Bool

	mu      sync.RWMutex // handoff closes under it
	handoff chan string
	closed  bool
}

type dispatched struct {
	target app.DeliveryTarget
	until  time.Time // the end of the claim
}

func NewDispatcher(deliver app.Deliver, handOver app.HandOver, cfg DispatchConfig) (*Dispatcher, error) {
	if cfg.Workers < 1 || cfg.Backlog < 1 || cfg.AttemptTimeout <= 0 || cfg.Slots == nil {
		return nil, errors.New("dispatcher: workers, backlog, attempt timeout and account slots must be set")
	}
	return &Dispatcher{deliver: deliver, jobs: handOver, cfg: cfg,
		queue: make(chan dispatched, cfg.Backlog), handoff: make(chan string, cfg.Backlog)}, nil
}

// Accepting implements app.FirstAttempts.
func (d *Dispatcher) Accepting() bool { return !d.stopping.Load() }

// Lease implements app.FirstAttempts.
func (d *Dispatcher) Lease() time.Duration { return d.cfg.AttemptTimeout + claimSlack }

// Dispatch implements app.FirstAttempts.
func (d *Dispatcher) Dispatch(until time.Time, targets []app.DeliveryTarget) {
	for _, t := range targets {
		if d.stopping.Load() {
			d.handOver(t.DeliveryID, "stopping")
			continue
		}
		select {
		case d.queue <- dispatched{target: t, until: until}:
		default:
			d.handOver(t.DeliveryID, "backlog")
		}
	}
}

// handOver queues a job for the delivery. It never blocks: when even the hand-over is full, the
// delivery keeps its claim until the sweeper finds it expired.
func (d *Dispatcher) handOver(deliveryID, reason string) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return
	}
	select {
	case d.handoff <- deliveryID:
		handoffs.WithLabelValues(reason).Inc()
	default:
	}
}

// Run attempts dispatched deliveries until ctx ends, then hands what is still waiting to queued
// jobs and lets the attempts in flight finish.
func (d *Dispatcher) Run(ctx context.Context) error {
	handedOver := make(chan struct{})
	go func() { defer close(handedOver); d.handOverAll() }()
	var wg sync.WaitGroup
	for range d.cfg.Workers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case item := <-d.queue:
					if ctx.Err() != nil {
						d.handOver(item.target.DeliveryID, "stopping")
						return
					}
					d.attempt(context.WithoutCancel(ctx), item) // an attempt in flight finishes
				}
			}
		})
	}
	<-ctx.Done()
	d.stopping.Store(true)
	for drained := false; !drained; { // at once: other replicas can take them while attempts finish here
		select {
		case item := <-d.queue:
			d.handOver(item.target.DeliveryID, "stopping")
		default:
			drained = true
		}
	}
	wg.Wait()
	d.mu.Lock()
	d.closed = true // a Dispatch racing the stop leaves its deliveries to the sweeper
	close(d.handoff)
	d.mu.Unlock()
	<-handedOver
	return nil
}

func (d *Dispatcher) attempt(ctx context.Context, item dispatched) {
	if time.Until(item.until) < d.cfg.AttemptTimeout+claimSlack/2 {
		d.handOver(item.target.DeliveryID, "claim_ending")
		return
	}
	release, _ := d.cfg.Slots.acquire(ctx, item.target.Subscription.AccountID(), item.target.Subscription.ID(), 1)
	if release == nil {
		d.handOver(item.target.DeliveryID, "account_share")
		return
	}
	release = sync.OnceFunc(release)
	defer release()
	next, err := d.deliver.Attempt(ctx, item.target, release)
	countOutcome(next, err)
	if err != nil {
		// Not recorded: the claim runs out and the sweeper queues the delivery again.
		slog.WarnContext(ctx, "dispatched delivery attempt not recorded", "delivery", item.target.DeliveryID, "error", err)
	}
}

// handOverAll queues jobs for the handed-over deliveries, a batch per transaction, until the
// hand-over closes.
func (d *Dispatcher) handOverAll() {
	ctx := context.Background()
	for id := range d.handoff {
		batch := []string{id}
	more:
		for len(batch) < handoffBatch {
			select {
			case id, ok := <-d.handoff:
				if !ok {
					break more
				}
				batch = append(batch, id)
			default:
				break more
			}
		}
		if _, err := d.jobs.Claimed(ctx, batch); err != nil {
			// They keep their claims, and the sweeper queues them when the claims run out.
			slog.ErrorContext(ctx, "handing dispatched deliveries to queued jobs", "deliveries", len(batch), "error", err)
		}
	}
}

// Sweep queues jobs for every pending delivery whose claim has run out.
func (d *Dispatcher) Sweep(ctx context.Context) error {
	for {
		n, err := d.jobs.Expired(ctx, sweepBatch)
		if n > 0 {
			handoffs.WithLabelValues("expired").Add(float64(n))
			slog.InfoContext(ctx, "queued deliveries whose dispatch claim ran out", "deliveries", n)
		}
		if err != nil || n < sweepBatch {
			return err
		}
	}
}
