// Command faults is the fault suite behind make test-faults: it starts the local stack with two
// replicas of every service on a PostgreSQL and a Redis of its own (so it may stop and restart
// them; the machine's are shared), applies each fault under bounded loopback load, checks what
// the stack promises under it (docs/decisions.md, Reliability) and prints a table: fault,
// acknowledged, lost, errors by status, recovery time. It exits 1 when a fault broke a promise.
//
//	go run ./tools/faults [-only redis-down,pg-restart] [-keep]
//
// It stops the stack (make down) and its private instances when it ends. Run it under the
// machine's stack lock (make test-faults takes it).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// suiteBound bounds the whole run, the stack's start and clean-up included.
const suiteBound = 22 * time.Minute

// The private instances listen below the kernel's ephemeral port range (32768-60999 by
// default): a client socket of an earlier stage, even one in TIME_WAIT, may hold a port inside
// it for a minute, and the server's bind then fails.
const (
	defaultPGPort    = 15432
	defaultRedisPort = 16379
)

func main() {
	only := flag.String("only", "", "comma-separated faults to run (default: all): "+strings.Join(faultNames(), ","))
	pgPort := flag.Int("pg-port", defaultPGPort, "the private PostgreSQL's port")
	redisPort := flag.Int("redis-port", defaultRedisPort, "the private Redis's port")
	flag.Parse()
	if err := runSuite(*only, *pgPort, *redisPort); err != nil {
		fmt.Fprintf(os.Stderr, "faults: %v\n", err)
		os.Exit(1)
	}
}

func runSuite(only string, pgPort, redisPort int) error {
	selected, err := selectFaults(only)
	if err != nil {
		return err
	}
	// ^C or SIGTERM ends the run through its context, so the clean-up below still stops the
	// stack and the private PostgreSQL and Redis.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, suiteBound)
	defer cancel()
	s, err := newSuite(pgPort, redisPort)
	if err != nil {
		return err
	}
	runID := make([]byte, 3)
	_, _ = rand.Read(runID)
	s.runID = hex.EncodeToString(runID)

	defer s.cleanup()
	if err := s.start(ctx); err != nil {
		return err
	}
	s.say("quiet run: %s of normal load, which must raise no alert", quietRun)
	results := []result{s.quietRun(ctx)}
	for _, f := range selected {
		s.say("fault: %s (alerts: %s)", f.name, orNone(f.alerts))
		started := time.Now()
		res := f.run(ctx, s)
		res.fault = f.name
		s.alertChecks(ctx, &res, f.alerts, started)
		s.note("%s in %s: %s", f.name, time.Since(started).Round(time.Second), res.verdict())
		results = append(results, res)
		if ctx.Err() != nil {
			break
		}
	}
	s.say("waiting for every alert raised to resolve (at most %s, under normal load)", alertResolveBound)
	s.settleAlerts(ctx, results)
	// Panels of errors and failed deliveries have data only when the faults that cause them ran.
	if only == "" {
		s.say("every dashboard panel and SLO recording rule over the run")
		results = append(results, s.dashboardsReturnData(ctx))
	} else {
		s.say("dashboards and SLO rules not checked: their error panels need every fault (-only %s)", only)
	}
	fmt.Println()
	printTable(os.Stdout, results, s.mon)
	for _, r := range results {
		if len(r.problems) > 0 {
			return fmt.Errorf("%d of %d faults broke a promise (above)", countFailed(results), len(results))
		}
	}
	if len(results) < len(selected) {
		return fmt.Errorf("ran %d of %d faults within %s", len(results), len(selected), suiteBound)
	}
	return nil
}

func countFailed(rs []result) int {
	n := 0
	for _, r := range rs {
		if len(r.problems) > 0 {
			n++
		}
	}
	return n
}
