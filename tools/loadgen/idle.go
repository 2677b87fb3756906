package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// IdleResult is the stack's standing work over a quiet interval before the first scenario: what
// its pollers, relays, claims and samplers cost when nobody calls it.
type IdleResult struct {
	Duration time.Duration
	CPU      CPUSample
	Counts   counters
}

// MeasureIdle sends nothing for d and meters the stack meanwhile: CPU per process group, and
// PostgreSQL's and Redis's work (with the services' CPU profiles when the profiler writes them,
// as idle.<service>.pprof).
func MeasureIdle(ctx context.Context, meter *CPUMeter, prof *Profiler, d time.Duration) (IdleResult, error) {
	stop, err := prof.Start(ctx, "idle", d)
	if err != nil {
		return IdleResult{}, err
	}
	before, err := meter.Sample()
	if err != nil {
		return IdleResult{}, err
	}
	from := time.Now()
	select {
	case <-ctx.Done():
		return IdleResult{}, ctx.Err()
	case <-time.After(d):
	}
	after, err := meter.Sample()
	if err != nil {
		return IdleResult{}, err
	}
	r := IdleResult{Duration: time.Since(from), CPU: after.Sub(before)}
	if r.Counts, err = stop(); err != nil {
		return IdleResult{}, err
	}
	return r, nil
}

// reportIdle prints the idle stack's CPU as a share of one core per group, then PostgreSQL's
// transactions and the tables scanned most, and Redis's commands, each per second.
func reportIdle(w io.Writer, r IdleResult) error {
	secs := r.Duration.Seconds()
	fmt.Fprintf(w, "\nthe idle stack over %s: CPU, %% of one core (machine includes loadgen and anything else running)\n", r.Duration.Round(time.Second))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cols := cpuColumns(r.CPU)
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c)
	}
	fmt.Fprintln(tw)
	for _, c := range cols {
		fmt.Fprintf(tw, "%.2f\t", 100*r.CPU[c].Seconds()/secs)
	}
	fmt.Fprintln(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	perSecond := func(prefix string) (total float64, top []string) {
		var keys []string
		for k, v := range r.Counts {
			if strings.HasPrefix(k, prefix) {
				keys = append(keys, k)
				total += float64(v) / secs
			}
		}
		sort.Slice(keys, func(i, j int) bool { return r.Counts[keys[i]] > r.Counts[keys[j]] })
		for _, k := range keys[:min(5, len(keys))] {
			top = append(top, fmt.Sprintf("%s %.2f", strings.TrimPrefix(k, prefix), float64(r.Counts[k])/secs))
		}
		return total, top
	}
	scans, tables := perSecond("pg scans ")
	calls, commands := perSecond("redis ")
	fmt.Fprintf(w, "per second: pg commits %.2f, pg table scans %.2f (%s), redis commands %.2f (%s)\n",
		float64(r.Counts["pg commits"])/secs, scans, strings.Join(tables, ", "), calls, strings.Join(commands, ", "))
	return nil
}
