// Command loadgen runs the load scenarios in tools/loadgen/scenarios against the local stack's
// ingress and prints requests per second, latency percentiles and errors for each. make bench runs
// it; each service adds its scenarios as a YAML file there. A scenario with `webhook:` measures the
// webhook pipeline end to end instead (webhook.go). For every scenario it also prints the CPU each
// process of the stack spent per unit of work (cpu.go) and PostgreSQL's and Redis's work per unit
// (profile.go), the figures of docs/capacity.md; -profile adds CPU profiles of the services, and
// -idle first meters the stack's standing work with no load (idle.go; -run '^$' -idle 60s for that
// alone).
//
// It dials from BENCH_SOURCE_IP (127.0.0.9), which the stack exempts from per-IP rate limits, and
// every run is bounded by each scenario's duration and -max-requests.
package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bizassist/bizassist/libs/rediskit"
	"github.com/bizassist/bizassist/tools/internal/devenv"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run() error {
	envPath := flag.String("env", ".devstack/env", "the stack's env file, written by make up")
	dir := flag.String("scenarios", "tools/loadgen/scenarios", "directory of scenario YAML files")
	filter := flag.String("run", "", "only scenarios whose name matches this regexp")
	duration := flag.Duration("duration", 0, "override every scenario's duration")
	concurrency := flag.Int("concurrency", 0, "override every scenario's concurrency")
	maxRequests := flag.Int("max-requests", 200000, "upper bound on requests per scenario")
	http1 := flag.Bool("http1", false, "use HTTP/1.1 (one connection per worker) instead of HTTP/2")
	strict := flag.Bool("strict", false, "fail when a webhook scenario leaves an accepted event undelivered or an inbound request gets a 5xx other than 503 (the fault cases of make test-scale)")
	vacuum := flag.Bool("vacuum", false, "VACUUM (ANALYZE) the stack's database before each scenario, as pgbench does (the local PostgreSQL runs without autovacuum); make bench sets it")
	open := flag.Bool("open", true, "after each route's closed loop, find its open-loop capacity and measure p50/p99/p99.9 at 50% and 80% of it (openloop.go)")
	probe := flag.Duration("probe", DefaultOpenLoop.Probe, "open loop: how long each rate of the capacity search is held")
	measure := flag.Duration("open-duration", DefaultOpenLoop.Measure, "open loop: how long the 50% and 80% rates are held")
	maxRate := flag.Int("max-rate", DefaultOpenLoop.MaxRate, "open loop: the highest rate the capacity search offers")
	idleFor := flag.Duration("idle", 0, "first meter the stack for this long with no load (its standing work: CPU per process, PostgreSQL and Redis per second); make bench sets 60s")
	profileDir := flag.String("profile", "", "also write each service's CPU profile per scenario to this directory (<scenario>.<service>.pprof)")
	flag.Parse()

	env, err := devenv.Load(*envPath)
	if err != nil {
		return fmt.Errorf("read the stack's settings (run make up first): %w", err)
	}
	match, err := regexp.Compile(*filter)
	if err != nil {
		return fmt.Errorf("-run: %w", err)
	}
	scenarios, err := LoadDir(*dir, env)
	if err != nil {
		return err
	}
	// Webhook scenarios go last: a saturated pipeline keeps draining events after its scenario
	// ends, and that work would be counted against the routes measured next.
	slices.SortStableFunc(scenarios, func(a, b Scenario) int {
		return cmp.Compare(boolInt(a.Webhook != nil), boolInt(b.Webhook != nil))
	})
	source := env["BENCH_SOURCE_IP"]
	tr, err := devenv.Transport(env["CA_CERT"], source)
	if err != nil {
		return err
	}
	if *http1 {
		tr.ForceAttemptHTTP2 = false
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Printf("==> load against %s from %s\n", env["BASE_URL"], source)
	meter := NewCPUMeter(filepath.Dir(*envPath))
	prof, err := NewProfiler(*profileDir, filepath.Dir(*envPath), redisConfig(env))
	if err != nil {
		return err
	}
	var (
		results  []Result
		opens    []OpenLoopResult
		webhooks []WebhookResult
		counts   []countRow
		failed   []string
	)
	logins := &Logins{}
	idle, err := meter.RSS()
	if err != nil {
		return err
	}
	rss := []rssColumn{{"idle", idle, rssAimIdle}}
	if *idleFor > 0 {
		fmt.Printf("    idle: nothing sent for %s\n", *idleFor)
		r, err := MeasureIdle(ctx, meter, prof, *idleFor)
		if err != nil {
			return fmt.Errorf("idle: %w", err)
		}
		if err := reportIdle(os.Stdout, r); err != nil {
			return err
		}
	}
	for _, sc := range scenarios {
		if !match.MatchString(sc.Name) {
			continue
		}
		if *duration > 0 {
			sc.Duration = *duration
		}
		if *concurrency > 0 {
			sc.Concurrency = *concurrency
		}
		var (
			err         error
			stopProfile func() (counters, error)
			unit        = "request"
			units       int
		)
		if *vacuum {
			if err := prof.Vacuum(ctx); err != nil {
				return err
			}
		}
		if stopProfile, err = prof.Start(ctx, sc.Name, sc.Duration); err != nil {
			return err
		}
		if sc.Webhook != nil {
			fmt.Printf("    %s: %d inbound new_lead/s for %s to %s, %d subscriptions\n", sc.Name, sc.Webhook.Rate, sc.Duration, sc.Path, sc.Webhook.Subscriptions)
			var res []WebhookResult
			stopRSS := meter.PeakRSS()
			res, err = RunWebhookWithQuiet(ctx, hc, env["BASE_URL"], sc, logins, meter, Stack{Env: env, Dir: filepath.Dir(*envPath)})
			rss = append(rss, rssColumn{"peak, " + sc.Name, stopRSS(), rssAimLoaded})
			if err == nil {
				webhooks = append(webhooks, res...)
				unit, units = "delivery", res[0].Delivered
			}
		} else {
			fmt.Printf("    %s: %s %s, %d workers for %s\n", sc.Name, sc.Method, sc.Path, sc.Concurrency, sc.Duration)
			var res Result
			if res, err = Run(ctx, hc, env["BASE_URL"], sc, *maxRequests, logins, meter); err == nil {
				results = append(results, res)
				units = res.Requests - res.Errors
			}
		}
		c, perr := stopProfile()
		if perr != nil {
			return perr
		}
		if err == nil {
			counts = append(counts, countRow{sc.Name, unit, units, c})
			if err := prof.writeCounts(sc.Name, unit, units, c); err != nil {
				return err
			}
		}
		if err != nil {
			// One broken scenario should not hide the others' numbers.
			fmt.Printf("    %s: %v\n", sc.Name, err)
			failed = append(failed, sc.Name)
			continue
		}
		if *open && sc.Webhook == nil && ctx.Err() == nil {
			last := results[len(results)-1]
			o := DefaultOpenLoop
			o.Probe, o.Measure, o.MaxRate = *probe, *measure, *maxRate
			fmt.Printf("    %s: open loop, capacity within p99 %s from %.0f/s\n", sc.Name, sc.Aim, last.RPS())
			res, err := RunOpenLoop(ctx, hc, env["BASE_URL"], sc, logins, int(last.RPS()), o)
			if err != nil && ctx.Err() == nil {
				fmt.Printf("    %s: open loop: %v\n", sc.Name, err)
				failed = append(failed, sc.Name+" (open loop)")
			} else {
				opens = append(opens, res)
			}
		}
		tr.CloseIdleConnections()
		if ctx.Err() != nil {
			break
		}
	}
	if len(results)+len(webhooks) == 0 && len(failed) == 0 && *idleFor == 0 {
		return fmt.Errorf("no scenario matches -run %q", *filter)
	}
	if err := report(os.Stdout, results, opens, webhooks); err != nil {
		return err
	}
	if err := reportCounts(os.Stdout, counts); err != nil {
		return err
	}
	if err := reportRSS(os.Stdout, rss); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("scenarios that could not run: %s", strings.Join(failed, ", "))
	}
	if *strict {
		return checkWebhooks(webhooks)
	}
	return nil
}

// redisConfig is the stack's Redis as the env file says: its Redis Cluster when make up had one.
func redisConfig(env map[string]string) rediskit.Config {
	cfg := rediskit.Config{URL: env["REDIS_URL"], DialTimeout: 2 * time.Second, ReadTimeout: 2 * time.Second,
		WriteTimeout: 2 * time.Second, PoolSize: 4}
	if addrs := env["REDIS_CLUSTER_ADDRS"]; addrs != "" {
		cfg.URL, cfg.ClusterAddrs = "redis://", strings.Split(addrs, ",")
	}
	return cfg
}

// checkWebhooks fails when a webhook scenario lost an accepted event, or answered an inbound
// request with a 5xx other than 503 (or not at all).
func checkWebhooks(webhooks []WebhookResult) error {
	var bad []string
	for _, r := range webhooks {
		if r.Undelivered() > 0 || r.Rejected > 0 || r.ServerErrors > 0 {
			bad = append(bad, fmt.Sprintf("%s (%d undelivered, %d rejected, %d 5xx other than 503)", r.Name, r.Undelivered(), r.Rejected, r.ServerErrors))
		}
		if f := r.Failover; f != nil && !f.LimitHeld() {
			bad = append(bad, fmt.Sprintf("%s: after the failover %d of %d statistics requests passed, over the policy's %d, in-process fallback %t", r.Name, rateProbes-f.RateLimited, rateProbes, f.Budget, f.FallbackActive))
		}
		if d := r.ReplicaDown; d != nil && !d.Isolated() {
			bad = append(bad, fmt.Sprintf("%s: while %s's replica %s was stopped no %s event was consumed: one sick master held back a stream of another", r.Name, d.Stream, d.Node, d.Healthy))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("-strict: %s", strings.Join(bad, "; "))
	}
	return nil
}

func report(w io.Writer, results []Result, opens []OpenLoopResult, webhooks []WebhookResult) error {
	var cpu []cpuRow
	if len(results) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "scenario\trequests/s\tp50\tp99\terrors\trequests\t")
		for _, r := range results {
			fmt.Fprintf(tw, "%s\t%.0f\t%s\t%s\t%d\t%d\t\n", r.Name, r.RPS(),
				round(r.Percentile(50)), round(r.Percentile(99)), r.Errors, r.Requests)
			cpu = append(cpu, cpuRow{r.Name, "request", r.Requests - r.Errors, r.CPU})
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if err := reportOpenLoop(w, results, opens); err != nil {
		return err
	}
	if len(webhooks) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "webhook scenario\tinbound/s\tsubs\taccepted\tdeliveries/s\tp50\tp99\tmax\tundelivered\tduplicates\trejected\tinbound errors\t")
		for _, r := range webhooks {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t\n", r.Name, r.Rate, r.Subs, r.Accepted, r.PerSecond(),
				round(r.Percentile(50)), round(r.Percentile(99)), round(r.Percentile(100)), r.Undelivered(), r.Duplicates, r.Rejected, r.InboundErrors)
			if !r.Quiet {
				cpu = append(cpu, cpuRow{r.Name, "delivery", r.Delivered, r.CPU})
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if err := reportCPU(w, cpu); err != nil {
		return err
	}
	for _, r := range results {
		if r.FirstError != "" {
			fmt.Fprintf(w, "%s: first error: %s\n", r.Name, r.FirstError)
		}
	}
	for _, r := range webhooks {
		if r.Failover != nil {
			f := r.Failover
			fmt.Fprintf(w, "%s: killed the Redis master %s; its slot took writes again after %s, the restarted node was a replica again after %s; inbound answers 503: %d, other 5xx or none: %d; afterwards %d of %d statistics requests passed, the policy allowing %d (in-process fallback: %t)\n",
				r.Name, f.Node, round(f.Window), round(f.Rejoined), r.Unavailable, r.ServerErrors, rateProbes-f.RateLimited, rateProbes, f.Budget, f.FallbackActive)
		}
		if d := r.ReplicaDown; d != nil {
			fmt.Fprintf(w, "%s: stopped %s, the replica of %s's master, for %s; meanwhile %.0f %s events were consumed and %.0f %s events published (held until a replica holds them); inbound answers 503: %d, other 5xx or none: %d\n",
				r.Name, d.Node, d.Stream, round(d.Stopped), d.HealthyConsumed, d.Healthy, d.SickPublished, d.Stream, r.Unavailable, r.ServerErrors)
		}
		if n := len(r.AccountP99s); n > 0 {
			fmt.Fprintf(w, "%s: %d accounts delivered to; their p99s: best %s, median %s, worst %s\n",
				r.Name, n, round(r.AccountP99s[0]), round(r.AccountP99s[n/2]), round(r.AccountP99s[n-1]))
		}
		if r.FirstError != "" {
			fmt.Fprintf(w, "%s: first inbound error: %s\n", r.Name, r.FirstError)
		}
	}
	return nil
}

// cpuRow is one scenario's CPU time, to be divided by its units (successful requests, or
// deliveries).
type cpuRow struct {
	name, unit string
	units      int
	cpu        CPUSample
}

// reportCPU prints the CPU time each process group spent per unit of work, in microseconds: the
// cost of a route or of a delivery, for capacity planning (docs/capacity.md).
func reportCPU(w io.Writer, rows []cpuRow) error {
	if len(rows) == 0 {
		return nil
	}
	cols := cpuColumns(rows[0].cpu)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "CPU per unit of work, microseconds (stack = ingress + services + postgres + redis; machine includes loadgen and anything else running)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "scenario\tper\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t", r.name, r.unit)
		for _, c := range cols {
			if r.units == 0 {
				fmt.Fprint(tw, "-\t")
				continue
			}
			fmt.Fprintf(tw, "%.0f\t", float64(r.cpu[c].Microseconds())/float64(r.units))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func round(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
