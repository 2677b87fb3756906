// Package openloop sends requests at a fixed arrival rate whatever the answers do, and measures
// each one's latency from its intended send time (issue 31). A closed loop has each worker wait
// for its answer before sending again, so a slow answer delays the requests that would have seen
// it and its p99 understates what clients arriving at a given rate see (coordinated omission).
// Here vegeta's attacker adds workers when all are busy, and a request sent late because the
// generator fell behind counts the delay too. make bench (tools/loadgen) measures capacities with
// it and the fault suite's overload row (tools/faults) drives routes past them.
package openloop

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Run is one fixed-rate run of a target.
type Run struct {
	Rate     int // requests per second offered
	Requests int // sent
	Errors   int // transport errors, and answers the run's check refused
	// Unsent is how many requests the schedule called for that were never sent: the attack ends
	// at its duration, and a generator held back by its worker bound falls behind. They count as
	// failures, so a rate the generator cannot offer is not reported as held.
	Unsent int
	// Latencies of every request (failed ones at the time they failed), from its intended send
	// time, sorted.
	Latencies  []time.Duration
	FirstError string
}

// ErrorRate is the share of the scheduled requests that failed or were never sent.
func (r Run) ErrorRate() float64 {
	if r.Requests+r.Unsent == 0 {
		return 0
	}
	return float64(r.Errors+r.Unsent) / float64(r.Requests+r.Unsent)
}

// Percentile is the p-th percentile (nearest rank) of the latencies, 0 when none.
func (r Run) Percentile(p float64) time.Duration { return Percentile(r.Latencies, p) }

// Held reports whether the run held its rate: under 1% errors and p99 within aim.
func (r Run) Held(aim time.Duration) bool {
	return r.Requests > 0 && r.ErrorRate() < 0.01 && r.Percentile(99) <= aim
}

// Percentile is the p-th percentile (nearest rank) of sorted, 0 when it is empty.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

// Check judges one answer: "" when it is what the run expects, otherwise why not.
type Check func(res *vegeta.Result) string

// Status expects every answer to have status code.
func Status(code int) Check {
	return func(res *vegeta.Result) string {
		if res.Error != "" || int(res.Code) != code {
			return fmt.Sprintf("status %d %s", res.Code, res.Error)
		}
		return ""
	}
}

// Options bound an attack: MaxWorkers the requests in flight (past it the schedule slips, and
// the slip is counted in the latencies), MaxBody the bytes of each answer's body kept for the
// check (0: none).
type Options struct {
	MaxWorkers uint64
	MaxBody    int64
}

// intendedLatency is a result's latency from its intended send time: vegeta's constant pacer
// schedules request seq (0-based) at began + (seq+1) × interval, and Timestamp is when a worker
// actually sent it, so the answer's time minus the schedule's is the latency a client arriving
// on schedule saw.
func intendedLatency(r *vegeta.Result, began time.Time, interval time.Duration) time.Duration {
	due := began.Add(time.Duration(r.Seq+1) * interval)
	return max(r.End().Sub(due), r.Latency)
}

// Attack sends tgt at rate per second for d, judges every answer with check and accounts it
// from its intended send time. each, when not nil, sees every result with its latency and the
// check's verdict, one at a time on the caller's goroutine.
func Attack(ctx context.Context, hc *http.Client, tgt vegeta.Target, rate int, d time.Duration, o Options, check Check,
	each func(res *vegeta.Result, latency time.Duration, problem string)) Run {
	atk := vegeta.NewAttacker(vegeta.Client(hc), vegeta.MaxWorkers(o.MaxWorkers), vegeta.MaxBody(o.MaxBody))
	pacer := vegeta.ConstantPacer{Freq: rate, Per: time.Second}
	interval := time.Second / time.Duration(rate)
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	run := Run{Rate: rate}
	began := time.Now() // the attack's own start follows within microseconds
	for res := range atk.Attack(vegeta.NewStaticTargeter(tgt), pacer, d, "") {
		run.Requests++
		latency := intendedLatency(res, began, interval)
		run.Latencies = append(run.Latencies, latency)
		problem := check(res)
		if problem != "" {
			run.Errors++
			if run.FirstError == "" {
				run.FirstError = problem
			}
		}
		if each != nil {
			each(res, latency, problem)
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
// more: at low rates a run is held longer, up to MaxRunLength.
const (
	ProbeSamples   = 200
	MeasureSamples = 2000
	MaxRunLength   = 20 * time.Second
)

// Long is d, or long enough for samples requests at rate, at most MaxRunLength.
func Long(d time.Duration, rate, samples int) time.Duration {
	need := time.Duration(samples) * time.Second / time.Duration(max(rate, 1))
	return max(d, min(need, MaxRunLength))
}
