// Command loadgen runs the load scenarios in tools/loadgen/scenarios against the local stack's
// ingress and prints requests per second, latency percentiles and errors for each. make bench runs
// it; each service adds its scenarios as a YAML file there.
//
// It dials from BENCH_SOURCE_IP (127.0.0.9), which the stack exempts from per-IP rate limits, and
// every run is bounded by each scenario's duration and -max-requests.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

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
	var results []Result
	var failed []string
	logins := &Logins{}
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
		fmt.Printf("    %s: %s %s, %d workers for %s\n", sc.Name, sc.Method, sc.Path, sc.Concurrency, sc.Duration)
		res, err := Run(ctx, hc, env["BASE_URL"], sc, *maxRequests, logins)
		if err != nil {
			// One broken scenario should not hide the others' numbers.
			fmt.Printf("    %s: %v\n", sc.Name, err)
			failed = append(failed, sc.Name)
			continue
		}
		results = append(results, res)
		tr.CloseIdleConnections()
		if ctx.Err() != nil {
			break
		}
	}
	if len(results) == 0 && len(failed) == 0 {
		return fmt.Errorf("no scenario matches -run %q", *filter)
	}
	if err := report(os.Stdout, results); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("scenarios that could not run: %s", strings.Join(failed, ", "))
	}
	return nil
}

func report(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\trequests/s\tp50\tp99\terrors\trequests\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%.0f\t%s\t%s\t%d\t%d\t\n", r.Name, r.RPS(),
			r.Percentile(50).Round(10*time.Microsecond), r.Percentile(99).Round(10*time.Microsecond), r.Errors, r.Requests)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if r.FirstError != "" {
			fmt.Fprintf(w, "%s: first error: %s\n", r.Name, r.FirstError)
		}
	}
	return nil
}
