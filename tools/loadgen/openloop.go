package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"text/tabwriter"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Open-loop measurement (issue 31). The closed-loop run (run.go) has each worker wait for its
// answer before sending again, so a slow answer delays the requests that would have seen it and
// its p99 understates what clients arriving at a given rate see (coordinated omission). Here a
// route is sent at a fixed arrival rate whatever the answers do (vegeta's attacker, which adds
// workers when all are busy), and each request's latency runs from its intended send time on the
// schedule to its answer: a request sent late because the load generator fell behind counts the
// delay too.

// OpenLoopOptions bound one route's open-loop measurement.
type OpenLoopOptions struct {
	// Probe is how long each rate of the capacity search is held; Measure how long the 50% and
	// 80% rates are.
	Probe, Measure time.Duration
	// MaxRate bounds the search; MaxSteps bounds its probes.
	MaxRate, MaxSteps int
	// MaxWorkers bounds the requests in flight (vegeta's workers); past it the schedule slips,
	// and the slip is counted in the latencies.
	MaxWorkers uint64
}

// DefaultOpenLoop is what make bench uses: about 35 s per route on top of the closed loop.
var DefaultOpenLoop = OpenLoopOptions{Probe: 2 * time.Second, Measure: 5 * time.Second, MaxRate: 50_000, MaxSteps: 8, MaxWorkers: 2_000}

// OpenLoopRun is one fixed-rate run of a route.
type OpenLoopRun struct {
	Rate     int // requests per second offered
	Requests int // sent
	Errors   int // transport errors, and answers other than the scenario's expect
	// Unsent is how many requests the schedule called for that were never sent: the attack ends
	// at its duration, and a generator held back by MaxWorkers falls behind. They count as
	// failures, so a rate the generator cannot offer is not reported as held.
	Unsent int
	// Latencies of every request (failed ones at the time they failed), from its intended send
	// time, sorted.
	Latencies  []time.Duration
	FirstError string
}

// ErrorRate is the share of the scheduled requests that failed or were never sent.
func (r OpenLoopRun) ErrorRate() float64 {
	if r.Requests+r.Unsent == 0 {
		return 0
	}
	return float64(r.Errors+r.Unsent) / float64(r.Requests+r.Unsent)
}

// Percentile is the p-th percentile (nearest rank) of the latencies, 0 when none.
func (r OpenLoopRun) Percentile(p float64) time.Duration {
	return Result{Latencies: r.Latencies}.Percentile(p)
}

// Held reports whether the run held its rate: under 1% errors and p99 within aim.
func (r OpenLoopRun) Held(aim time.Duration) bool {
	return r.Requests > 0 && r.ErrorRate() < 0.01 && r.Percentile(99) <= aim
}

// OpenLoopResult is one route's capacity and its latencies at half and 80% of it.
type OpenLoopResult struct {
	Name string
	Aim  time.Duration // the p99 the capacity is held within
	// Capacity is the highest rate the search found held (0: not even its lowest); Steps are
	// its probes in order.
	Capacity int
	Steps    []OpenLoopRun
	// At50 and At80 are the runs at 50% and 80% of Capacity (zero when Capacity is 0).
	At50, At80 OpenLoopRun
}

// intendedLatency is a result's latency from its intended send time: vegeta's constant pacer
// schedules request seq (0-based) at began + (seq+1) × interval, and Timestamp is when a worker
// actually sent it, so the answer's time minus the schedule's is the latency a client arriving
// on schedule saw.
func intendedLatency(r *vegeta.Result, began time.Time, interval time.Duration) time.Duration {
	due := began.Add(time.Duration(r.Seq+1) * interval)
	return max(r.End().Sub(due), r.Latency)
}

// Attack sends the target at rate per second for d and accounts every answer from its intended
// send time.
func Attack(ctx context.Context, hc *http.Client, tgt vegeta.Target, expect, rate int, d time.Duration, maxWorkers uint64) OpenLoopRun {
	atk := vegeta.NewAttacker(vegeta.Client(hc), vegeta.MaxWorkers(maxWorkers), vegeta.MaxBody(0))
	pacer := vegeta.ConstantPacer{Freq: rate, Per: time.Second}
	interval := time.Second / time.Duration(rate)
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	run := OpenLoopRun{Rate: rate}
	began := time.Now() // the attack's own start follows within microseconds
	for res := range atk.Attack(vegeta.NewStaticTargeter(tgt), pacer, d, "") {
		run.Requests++
		run.Latencies = append(run.Latencies, intendedLatency(res, began, interval))
		if res.Error != "" || int(res.Code) != expect {
			run.Errors++
			if run.FirstError == "" {
				run.FirstError = fmt.Sprintf("status %d %s", res.Code, res.Error)
			}
		}
	}
	slices.Sort(run.Latencies)
	if ctx.Err() == nil {
		run.Unsent = max(int(d/interval)-run.Requests, 0) // request n is due at (n+1) × interval
	}
	return run
}

// FindCapacity searches for the highest rate that probe reports held, starting at seed per
// second: doubling while it holds (halving while it does not), then bisecting between the highest
// held and the lowest failed rate until they are within 10% of each other. It makes at most
// maxSteps probes and never offers more than maxRate; the answer is 0 when even 1/s failed.
func FindCapacity(seed, maxRate, maxSteps int, probe func(rate int) bool) int {
	seed = min(max(seed, 1), maxRate)
	held, failed := 0, math.MaxInt // the highest rate held so far, the lowest failed
	rate := seed
	for steps := 0; steps < maxSteps; steps++ {
		if probe(rate) {
			held = max(held, rate)
		} else {
			failed = min(failed, rate)
		}
		switch {
		case failed == math.MaxInt: // nothing failed yet: go up
			if rate >= maxRate {
				return held
			}
			rate = min(rate*2, maxRate)
		case held == 0: // nothing held yet: go down
			if rate <= 1 {
				return 0
			}
			rate = max(rate/2, 1)
		default:
			if failed-held <= max(held/10, 1) {
				return held
			}
			rate = held + (failed-held)/2
		}
	}
	return held
}

// A p99 needs a few hundred requests to be more than the slowest one, a p99.9 a thousand or
// more: at low rates a run is held longer, up to maxRunLength.
const (
	minProbeSamples   = 200
	minMeasureSamples = 2000
	maxRunLength      = 20 * time.Second
)

// long is d, or long enough for samples requests at rate, at most maxRunLength.
func long(d time.Duration, rate, samples int) time.Duration {
	need := time.Duration(samples) * time.Second / time.Duration(max(rate, 1))
	return max(d, min(need, maxRunLength))
}

// RunOpenLoop finds sc's capacity within its aim, seeded by the closed loop's throughput, and
// measures the latencies at 50% and 80% of it.
func RunOpenLoop(ctx context.Context, hc *http.Client, base string, sc Scenario, logins *Logins, seed int, o OpenLoopOptions) (OpenLoopResult, error) {
	headers, err := requestHeaders(ctx, hc, base, sc, logins)
	if err != nil {
		return OpenLoopResult{}, err
	}
	tgt := vegeta.Target{Method: sc.Method, URL: base + sc.Path, Body: sc.body, Header: headers}
	res := OpenLoopResult{Name: sc.Name, Aim: sc.Aim}
	res.Capacity = FindCapacity(seed, o.MaxRate, o.MaxSteps, func(rate int) bool {
		if ctx.Err() != nil {
			return false
		}
		run := Attack(ctx, hc, tgt, sc.Expect, rate, long(o.Probe, rate, minProbeSamples), o.MaxWorkers)
		res.Steps = append(res.Steps, run)
		return run.Held(sc.Aim)
	})
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if res.Capacity > 0 {
		at50, at80 := max(res.Capacity/2, 1), max(res.Capacity*4/5, 1)
		res.At50 = Attack(ctx, hc, tgt, sc.Expect, at50, long(o.Measure, at50, minMeasureSamples), o.MaxWorkers)
		res.At80 = Attack(ctx, hc, tgt, sc.Expect, at80, long(o.Measure, at80, minMeasureSamples), o.MaxWorkers)
	}
	return res, ctx.Err()
}

// reportOpenLoop prints each route's capacity and open-loop percentiles beside its closed-loop
// p99, so the difference shows.
func reportOpenLoop(w io.Writer, closed []Result, open []OpenLoopResult) error {
	if len(open) == 0 {
		return nil
	}
	closedP99 := map[string]time.Duration{}
	for _, r := range closed {
		closedP99[r.Name] = r.Percentile(99)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "open loop: fixed arrival rate, latency from each request's intended send time; capacity = highest rate with < 1% errors and p99 within aim")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tclosed p99\taim\tcapacity/s\tprobes\t50%: rate\tp50\tp99\tp99.9\terrors\t80%: rate\tp50\tp99\tp99.9\terrors\t")
	for _, r := range open {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t", r.Name, round(closedP99[r.Name]), r.Aim, r.Capacity, len(r.Steps))
		for _, run := range []OpenLoopRun{r.At50, r.At80} {
			if run.Requests == 0 {
				fmt.Fprint(tw, "-\t-\t-\t-\t-\t")
				continue
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t", run.Rate, round(run.Percentile(50)), round(run.Percentile(99)), round(run.Percentile(99.9)), run.Errors+run.Unsent)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "(errors include requests the schedule called for that the load generator could not send)")
	for _, r := range open {
		for _, s := range r.Steps {
			if s.FirstError != "" {
				fmt.Fprintf(w, "%s: open loop at %d/s: first error: %s\n", r.Name, s.Rate, s.FirstError)
				break
			}
		}
	}
	return nil
}
