package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
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
	Workers int // attempts at once
	Backlog int // deliveries waiting for a worker
	// BacklogWait is how long Dispatch waits for room in a full backlog before it hands the rest
	// of its deliveries to queued jobs. Its caller, the consumer that planned them, waits too, so
	// past the workers' pace events wait in their stream, where waiting costs nothing, instead of
	// each becoming a queued job (a row inserted, fetched and completed) whose database work
	// takes from the attempts': 300 events/s to 5 subscriptions for 30 s delivered 427/s with
	// the overflow handed over, against 968/s for 10 s. Less than claimSlack/2, so that a
	// delivery let in after the wait can still be attempted.
	BacklogWait    time.Duration
	AttemptTimeout time.Duration // the sender's timeout
	Slots          *AccountSlots // shared with the queued jobs' workers (RunJob)
	Metrics        DeliveryMetrics
}

// Dispatcher makes the first attempt of each delivery planned in this process (PlanDeliveries
// hands it the deliveries as their transaction commits), without a queued job: a job is a row inserted, fetched and completed, and most first attempts succeed.
// Each attempt is a Deliver.Attempt. A delivery it cannot attempt in time (its backlog is full,
// its account has its share in flight, the process stops) it hands to a queued job
// (HandOver); one it never gets to (the process died) is handed over by any replica's Sweep
// once its claim runs out. Retries are always queued jobs.
type Dispatcher struct {
	deliver  Deliver
	jobs     HandOver // what it will not attempt goes to queued jobs
	cfg      DispatchConfig
	queue    chan dispatched
	stopping atomic.Bool
	stop     chan struct{} // closed as it stops: a Dispatch waiting for room hands over at once

	mu      sync.RWMutex // handoff closes under it
	handoff chan string
	closed  bool

	parked parking
}

// parking holds the deliveries of accounts that had their whole share in flight in this
// dispatcher. Each of the account's attempts that ends here takes the next one, so a busy
// account's backlog waits without holding a worker, and other accounts' deliveries queued behind
// it go ahead. (Workers waiting in turn for one busy account's slots held every account's
// deliveries behind it: a quiet account's p99 was 5-13 s beside one fanning out to 100.)
type parking struct {
	mu        sync.Mutex
	byAccount map[string][]dispatched
	inFlight  map[string]int // this dispatcher's attempts, by account
	n, limit  int
}

// park keeps item for a later attempt of its account's, if one is in flight here and there is room.
func (p *parking) park(accountID string, item dispatched) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inFlight[accountID] == 0 || p.n >= p.limit {
		return false
	}
	p.byAccount[accountID] = append(p.byAccount[accountID], item)
	p.n++
	return true
}

func (p *parking) started(accountID string) {
	p.mu.Lock()
	p.inFlight[accountID]++
	p.mu.Unlock()
}

// next gives the account's oldest parked delivery that a slot can be taken for now, with the
// slot, counted in flight from then on (ended: an attempt of the account's has just ended here).
// When no attempt of the account's is left in flight here, nothing would take the others: they
// are returned to be handed over.
func (p *parking) next(accountID string, ended bool, take func(subscriptionID string) func()) (item dispatched, ok bool, stranded []dispatched) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ended {
		if p.inFlight[accountID]--; p.inFlight[accountID] == 0 {
			delete(p.inFlight, accountID)
		}
	}
	waiting := p.byAccount[accountID]
	for i, w := range waiting {
		if slot := take(w.target.Subscription.ID()); slot != nil {
			w.slot = slot
			item, ok = w, true
			waiting = slices.Delete(waiting, i, i+1)
			p.n--
			p.inFlight[accountID]++ // from its slot on: deliveries parked behind it wait for its end
			break
		}
	}
	if p.inFlight[accountID] == 0 && !ok {
		stranded, waiting = waiting, nil
		p.n -= len(stranded)
	}
	if len(waiting) == 0 {
		delete(p.byAccount, accountID)
	} else {
		p.byAccount[accountID] = waiting
	}
	return item, ok, stranded
}

// all empties the parking.
func (p *parking) all() []dispatched {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []dispatched
	for accountID, waiting := range p.byAccount {
		out = append(out, waiting...)
		delete(p.byAccount, accountID)
	}
	p.n = 0
	return out
}

type dispatched struct {
	target DeliveryTarget
	until  time.Time // the end of the claim
	slot   func()    // a slot of its account's reserved for it when it left the parking, or nil
}

// drop hands item over to a queued job, giving back the slot it holds.
func (d *Dispatcher) drop(item dispatched, reason string) {
	if item.slot != nil {
		item.slot()
	}
	d.handOver(item.target.DeliveryID, reason)
}

// NewDispatcher returns a dispatcher; the service runs it (Run) and its sweeper (Sweep).
func NewDispatcher(deliver Deliver, handOver HandOver, cfg DispatchConfig) (*Dispatcher, error) {
	if cfg.Workers < 1 || cfg.Backlog < 1 || cfg.AttemptTimeout <= 0 || cfg.Slots == nil || cfg.Metrics == nil {
		return nil, errors.New("dispatcher: workers, backlog, attempt timeout, account slots and metrics must be set")
	}
	if cfg.BacklogWait < 0 || cfg.BacklogWait >= claimSlack/2 {
		return nil, fmt.Errorf("dispatcher: the backlog wait must be at least 0 and under %s, got %s", claimSlack/2, cfg.BacklogWait)
	}
	return &Dispatcher{deliver: deliver, jobs: handOver, cfg: cfg, stop: make(chan struct{}),
		queue: make(chan dispatched, cfg.Backlog), handoff: make(chan string, cfg.Backlog),
		parked: parking{byAccount: map[string][]dispatched{}, inFlight: map[string]int{}, limit: cfg.Backlog}}, nil
}

// Accepting implements FirstAttempts.
func (d *Dispatcher) Accepting() bool { return !d.stopping.Load() }

// Lease implements FirstAttempts.
func (d *Dispatcher) Lease() time.Duration { return d.cfg.AttemptTimeout + claimSlack }

// Dispatch implements FirstAttempts. A full backlog is waited on for up to BacklogWait (less
// when the claims would run down meanwhile); what still does not fit goes to queued jobs.
func (d *Dispatcher) Dispatch(until time.Time, targets []DeliveryTarget) {
	var full <-chan time.Time
	for i, t := range targets {
		item := dispatched{target: t, until: until}
		if d.stopping.Load() {
			d.handOver(t.DeliveryID, "stopping")
			continue
		}
		select {
		case d.queue <- item:
			continue
		default:
		}
		if full == nil {
			wait := time.NewTimer(min(d.cfg.BacklogWait, time.Until(until)-d.cfg.AttemptTimeout-claimSlack/2))
			defer wait.Stop()
			full = wait.C
		}
		select {
		case d.queue <- item:
		case <-full:
			d.handOverAllOf(targets[i:], "backlog")
			return
		case <-d.stop:
			d.handOverAllOf(targets[i:], "stopping")
			return
		}
	}
}

func (d *Dispatcher) handOverAllOf(targets []DeliveryTarget, reason string) {
	for _, t := range targets {
		d.handOver(t.DeliveryID, reason)
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
		d.cfg.Metrics.HandedOff(reason, 1)
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
						d.drop(item, "stopping")
						return
					}
					d.attempt(context.WithoutCancel(ctx), item) // an attempt in flight finishes
				}
			}
		})
	}
	<-ctx.Done()
	d.stopping.Store(true)
	close(d.stop)
	d.dropQueued() // at once: other replicas can take them while attempts finish here
	wg.Wait()
	// An attempt that ended meanwhile may have requeued a parked delivery after the first drain.
	d.dropQueued()
	for _, item := range d.parked.all() {
		d.drop(item, "stopping")
	}
	d.mu.Lock()
	d.closed = true // a Dispatch racing the stop leaves its deliveries to the sweeper
	close(d.handoff)
	d.mu.Unlock()
	<-handedOver
	return nil
}

// dropQueued hands every queued delivery over to a queued job.
func (d *Dispatcher) dropQueued() {
	for {
		select {
		case item := <-d.queue:
			d.drop(item, "stopping")
		default:
			return
		}
	}
}

// attempt makes item's attempt, and goes on with the deliveries of its account's that it is
// handed (try).
func (d *Dispatcher) attempt(ctx context.Context, item dispatched) {
	for ok := true; ok; {
		item, ok = d.try(ctx, item)
	}
}

// try attempts item, hands it over to a queued job, or parks it behind its account's attempts in
// flight here. It returns a parked delivery of the account's, with a slot taken for it, for the
// caller to go on with: when an attempt frees its slot (as its receiver answers) the slot goes to
// the oldest parked delivery that can use it, back into the queue, or to this worker after the
// record when the queue is full; a hand-over passes on its turn the same way.
func (d *Dispatcher) try(ctx context.Context, item dispatched) (dispatched, bool) {
	accountID, subscriptionID := item.target.Subscription.AccountID(), item.target.Subscription.ID()
	reserved := item.slot != nil // and counted in flight
	if d.stopping.Load() {
		d.drop(item, "stopping")
		return d.nextParked(accountID, reserved)
	}
	if time.Until(item.until) < d.cfg.AttemptTimeout+claimSlack/2 {
		d.drop(item, "claim_ending")
		return d.nextParked(accountID, reserved)
	}
	release := item.slot
	if !reserved {
		if release, _ = d.cfg.Slots.take(accountID, subscriptionID, 1); release == nil {
			if d.parked.park(accountID, item) {
				return dispatched{}, false
			}
			// Nothing of the account's in flight here (its share is with queued jobs): wait for a slot.
			if release, _ = d.cfg.Slots.acquire(ctx, accountID, subscriptionID, 1); release == nil {
				d.handOver(item.target.DeliveryID, "account_share")
				return d.nextParked(accountID, false)
			}
		}
		d.parked.started(accountID)
	}
	var next dispatched
	var mine bool
	free := release
	release = sync.OnceFunc(func() {
		free()
		if next, mine = d.nextParked(accountID, true); mine && d.requeue(next) {
			mine = false
		}
	})
	defer release()
	d.deliverOne(ctx, item, release)
	release()
	return next, mine
}

// nextParked takes the account's next parked delivery that can have a slot now (ended: one of
// its attempts has just ended here), and hands over those nothing here would take any more.
func (d *Dispatcher) nextParked(accountID string, ended bool) (dispatched, bool) {
	item, ok, stranded := d.parked.next(accountID, ended, func(subscriptionID string) func() {
		release, _ := d.cfg.Slots.take(accountID, subscriptionID, 1)
		return release
	})
	for _, s := range stranded {
		d.handOver(s.target.DeliveryID, "account_share")
	}
	return item, ok
}

// requeue puts a parked delivery back at the end of the queue, if there is room.
func (d *Dispatcher) requeue(item dispatched) bool {
	select {
	case d.queue <- item:
		return true
	default:
		return false
	}
}

func (d *Dispatcher) deliverOne(ctx context.Context, item dispatched, release func()) {
	next, err := d.deliver.Attempt(ctx, item.target, release)
	d.cfg.Metrics.Attempted(next, err)
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
			d.cfg.Metrics.HandedOff("expired", n)
			slog.InfoContext(ctx, "queued deliveries whose dispatch claim ran out", "deliveries", n)
		}
		if err != nil || n < sweepBatch {
			return err
		}
	}
}
