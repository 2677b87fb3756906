package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"text/tabwriter"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/bizassist/bizassist/tools/internal/openloop"
)

// Open-loop measurement (issue 31): each route's capacity, the highest fixed arrival rate it
// holds within its aim, and its latencies at half and 80% of it (tools/internal/openloop).

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

// OpenLoopResult is one route's capacity and its latencies at half and 80% of it.
type OpenLoopResult struct {
	Name string
	Aim  time.Duration // the p99 the capacity is held within
	// Capacity is the highest rate the search found held (0: not even its lowest); Steps are
	// its probes in order. Ceiling is the generator's own capacity for the same requests
	// (openloop.Search.Ceiling): a capacity near it is the generator's figure.
	Capacity, Ceiling int
	Steps             []openloop.Run
	// At50 and At80 are the runs at 50% and 80% of Capacity (zero when Capacity is 0).
	At50, At80 openloop.Run
}

// RunOpenLoop finds sc's capacity within its aim, seeded by the closed loop's throughput, and the
// generator's own ceiling for the same requests, and measures the latencies at 50% and 80% of the
// capacity.
func RunOpenLoop(ctx context.Context, hc *http.Client, base string, sc Scenario, logins *Logins, seed int, o OpenLoopOptions) (OpenLoopResult, error) {
	headers, err := requestHeaders(ctx, hc, base, sc, logins)
	if err != nil {
		return OpenLoopResult{}, err
	}
	tgt := vegeta.Target{Method: sc.Method, URL: base + sc.Path, Body: sc.body, Header: headers}
	res := OpenLoopResult{Name: sc.Name, Aim: sc.Aim}
	search := openloop.Search{Seed: seed, MaxRate: o.MaxRate, MaxSteps: o.MaxSteps, Probe: o.Probe,
		Options: openloop.Options{MaxWorkers: o.MaxWorkers}}
	check := openloop.Status(sc.Expect)
	res.Capacity = search.Capacity(ctx, hc, tgt, sc.Aim, check, func(r openloop.Run) { res.Steps = append(res.Steps, r) })
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	search.Seed = max(res.Capacity, 1) // the ceiling is searched from the capacity up
	if res.Ceiling, err = search.Ceiling(ctx, hc, tgt, sc.Aim); err != nil || ctx.Err() != nil {
		return res, errors.Join(err, ctx.Err())
	}
	atk := search.Options
	if res.Capacity > 0 {
		at50, at80 := max(res.Capacity/2, 1), max(res.Capacity*4/5, 1)
		res.At50 = openloop.Attack(ctx, hc, tgt, at50, openloop.Long(o.Measure, at50, openloop.MeasureSamples), atk, check, nil)
		res.At80 = openloop.Attack(ctx, hc, tgt, at80, openloop.Long(o.Measure, at80, openloop.MeasureSamples), atk, check, nil)
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
	fmt.Fprintln(tw, "scenario\tclosed p99\taim\tcapacity/s\tgenerator/s\tprobes\t50%: rate\tp50\tp99\tp99.9\terrors\t80%: rate\tp50\tp99\tp99.9\terrors\t")
	for _, r := range open {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t", r.Name, round(closedP99[r.Name]), r.Aim, r.capacity(), r.Ceiling, len(r.Steps))
		for _, run := range []openloop.Run{r.At50, r.At80} {
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
	fmt.Fprintln(w, "(errors include requests the schedule called for that the load generator could not send; generator/s is")
	fmt.Fprintln(w, " its own capacity for the same requests against a server that does nothing, and a capacity within")
	fmt.Fprintln(w, " 80% of it is marked \"(generator)\": the generator's figure, not the server's)")
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

// capacity is the capacity as the table shows it: marked when it is within 80% of the
// generator's ceiling, where the generator and not the server set it.
func (r OpenLoopResult) capacity() string {
	if r.Ceiling > 0 && r.Capacity*5 >= r.Ceiling*4 {
		return fmt.Sprintf("%d (generator)", r.Capacity)
	}
	return strconv.Itoa(r.Capacity)
}
