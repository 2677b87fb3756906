package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// fault is one scenario of the suite: id for -only, name for the table, and the alerts of the
// chart's rules that must become active while it lasts (and resolve after it).
type fault struct {
	id, name string
	run      func(ctx context.Context, s *suite) result
	alerts   []string
}

// The two rows whose alerts are slow to resolve come first, so that the rows after them cover
// the wait instead of the final wait for every alert to resolve: PostgreSQL's error-rate alert
// resolves once the errors have left the rule's window (4m17s after the row on 2026-12-03, with
// 4m18s of rows after it), the receiver's failure ratio once the successes outweigh the failures
// in its 5-minute rates (3m28s; 2m37s of rows after it, against 1m39s when it came last).
var faults = []fault{
	{"pg-restart", "postgres down 10s", postgresRestart, []string{"BizassistHighErrorRate", "BizassistSLOBurnRatePage"}},
	{"receiver-down", "receiver down 40s", receiverDown, []string{"BizassistWebhookDeliveryFailures"}},
	{"duplicate", "same event x10 at once", sameEventTenTimes, nil},
	{"redis-down", "redis down 20s", redisDown, []string{firedAlert}},
	{"redis-empty", "redis empty, consumers paused", redisEmptyWhilePaused, nil},
	{"rolling-restart", "SIGTERM each of 2 replicas", rollingRestart, []string{"BizassistTargetDown"}},
	{"kill-9", "kill -9 integrations", killIntegrations, []string{"BizassistTargetDown", "BizassistWebhookDeliveriesStuck"}},
}

// optIn are the faults that run only when -only names them: the overload row does not pass yet on
// a two-core machine (docs/decisions.md, "Overload"), and a stage that fails every time would
// hide every other row's result.
var optIn = []fault{
	{"overload", "each route class at 2x and 5x its capacity", overload, []string{"BizassistOverload"}},
}

func faultNames() []string {
	var out []string
	for _, f := range append(slices.Clone(faults), optIn...) {
		out = append(out, f.id)
	}
	return out
}

func selectFaults(only string) ([]fault, error) {
	if only == "" {
		return faults, nil
	}
	var out []fault
	for _, want := range strings.Split(only, ",") {
		found := false
		for _, f := range append(slices.Clone(faults), optIn...) {
			if f.id == strings.TrimSpace(want) {
				out = append(out, f)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no fault %q; the faults are %s", want, strings.Join(faultNames(), ", "))
		}
	}
	return out, nil
}

// Bounds the suite asserts (docs/decisions.md, Reliability).
const (
	requestRecovery  = 15 * time.Second  // requests succeed again this soon after a dependency returns
	deliveryBound    = 90 * time.Second  // acknowledged events are delivered this soon after it returns
	retryBound       = 150 * time.Second // deliveries that met a failing receiver, after it is back
	rescueBound      = 3 * time.Minute   // deliveries of a killed worker, after the restart: its job timeout (45 s), the rescue margin (30 s) and the rescuer's period (30 s)
	replicas         = "integrations"    // the service the load reaches: inbound events and reads
	consumersPaused  = "leads"           // the consumer of inbound events, paused with SIGSTOP
	baseline         = 3 * time.Second   // load before each fault, so it starts from a working stack
	afterDependency  = 5 * time.Second   // load after a dependency returns
	maxReplicaDrains = 25 * time.Second  // a replica's drain (1 s) and shutdown, with margin
)

// loadRun is load running in the background.
type loadRun struct {
	t      *tally
	cancel context.CancelFunc
	done   chan struct{}
}

func (s *suite) startLoad(ctx context.Context, withReads bool) *loadRun {
	lctx, cancel := context.WithCancel(ctx)
	l := &loadRun{t: newTally(), cancel: cancel, done: make(chan struct{})}
	go func() { defer close(l.done); runLoad(lctx, s.c, l.t, withReads) }()
	return l
}

// stop ends the load and returns its tally once every request was answered.
func (l *loadRun) stop() *tally {
	l.cancel()
	<-l.done
	return l.t
}

// settle fills res from the load's tally and what the receiver and the sheet show of the
// acknowledged events: each delivered once (one webhook-id) within bound and in the sheet; and,
// when restored is set, the recovery time from then.
func (s *suite) settle(ctx context.Context, res *result, t *tally, restored time.Time, bound time.Duration) check {
	t.mu.Lock()
	acked := append([]string(nil), t.acked...)
	res.errors = t.errors
	lastFailure := t.lastFailure
	t.mu.Unlock()
	res.acked = len(acked)
	c := s.hooks.waitDelivered(acked, bound)
	sheet, err := s.sheetEmails(ctx)
	if err != nil {
		res.fail("read the sheet: %v", err)
	}
	notInSheet := 0
	for _, e := range acked {
		if sheet[e] == 0 {
			notInSheet++
		}
	}
	res.lost = max(len(c.missing), notInSheet)
	if len(c.missing) > 0 {
		res.fail("%d acknowledged events not delivered within %s (e.g. %s)", len(c.missing), bound, c.missing[0])
	}
	if notInSheet > 0 {
		res.fail("%d acknowledged leads missing from the sheet", notInSheet)
	}
	if len(c.twice) > 0 {
		res.fail("%d events delivered under two webhook-ids (e.g. %s)", len(c.twice), c.twice[0])
	}
	if len(c.idChanged) > 0 {
		res.fail("%d retries changed webhook-id", len(c.idChanged))
	}
	res.recovery = -1
	if !restored.IsZero() {
		res.recovery = max(lastFailure.Sub(restored), c.lastArrive.Sub(restored), 0)
		if d := lastFailure.Sub(restored); d > requestRecovery {
			res.fail("requests still failed %s after the dependency returned (bound %s)", d.Round(time.Second), requestRecovery)
		}
	}
	return c
}

// only503 fails res for any failed request but a 503, the answer for a dependency outage.
func only503(res *result) {
	for status, n := range res.errors {
		if status != "503" {
			res.fail("%d requests failed with %s (only 503 is allowed during a dependency outage)", n, status)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// sameEventTenTimes posts one inbound event ten times at once under one webhook-id: one is
// processed, nine are answered as duplicates, and one lead and one delivery come of it.
func sameEventTenTimes(ctx context.Context, s *suite) result {
	var res result
	email, id := s.c.nextEvent()
	t := newTally()
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		processed int
	)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, acked := s.c.inbound(ctx, email, id)
			t.record(o, "")
			if acked {
				mu.Lock()
				processed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if processed != 1 {
		res.fail("%d of 10 copies were processed, want 1", processed)
	}
	t.acked = []string{email}
	s.settle(ctx, &res, t, time.Time{}, 30*time.Second)
	res.acked = processed
	if len(res.errors) > 0 {
		res.fail("copies were refused: %s", errorsText(res.errors))
	}
	sleep(ctx, 2*time.Second) // a second delivery would have come by now
	if c := s.hooks.check([]string{email}); len(c.twice) > 0 {
		res.fail("the event was delivered twice")
	}
	if sheet, err := s.sheetEmails(ctx); err == nil && sheet[email] != 1 {
		res.fail("%d leads in the sheet, want 1", sheet[email])
	}
	return res
}

// redisDown stops Redis for 20 s under load and starts it again, empty (no persistence).
func redisDown(ctx context.Context, s *suite) result {
	return dependencyDown(ctx, s, s.redis, 20*time.Second)
}

// dependency is a private PostgreSQL or Redis of the suite.
type dependency interface {
	stop(ctx context.Context) error
	start(ctx context.Context) error
}

// dependencyDown stops dep under load for down and starts it again: nothing acknowledged is
// lost, the only errors are 503, and the deliveries catch up within deliveryBound.
func dependencyDown(ctx context.Context, s *suite, dep dependency, down time.Duration) result {
	var res result
	load := s.startLoad(ctx, true)
	sleep(ctx, baseline)
	if err := dep.stop(ctx); err != nil {
		res.fail("%v", err)
	}
	sleep(ctx, down)
	if err := dep.start(ctx); err != nil {
		res.fail("%v", err)
	}
	restored := time.Now()
	sleep(ctx, afterDependency)
	s.settle(ctx, &res, load.stop(), restored, deliveryBound)
	only503(&res)
	return res
}

// redisEmptyWhilePaused pauses leads (the consumer of inbound events) while events pile up in
// its stream, restarts Redis empty, and resumes leads: the streams are rebuilt from the outbox.
func redisEmptyWhilePaused(ctx context.Context, s *suite) result {
	var res result
	paused := []string{consumersPaused, consumersPaused + ".2"}
	if err := s.signal(syscall.SIGSTOP, paused...); err != nil {
		res.fail("%v", err)
		return res
	}
	defer func() { _ = s.signal(syscall.SIGCONT, paused...) }()
	load := s.startLoad(ctx, true)
	sleep(ctx, 5*time.Second) // events wait in the stream for the paused consumers
	if err := s.redis.stop(ctx); err != nil {
		res.fail("%v", err)
	}
	if err := s.redis.start(ctx); err != nil {
		res.fail("%v", err)
	}
	restored := time.Now()
	sleep(ctx, 2*time.Second)
	if err := s.signal(syscall.SIGCONT, paused...); err != nil {
		res.fail("%v", err)
	}
	sleep(ctx, afterDependency)
	s.settle(ctx, &res, load.stop(), restored, deliveryBound)
	only503(&res)
	return res
}

// postgresRestart stops PostgreSQL (fast shutdown: sessions terminated), keeps it down 10 s under
// load and starts it again. Ten seconds of 503s are over 5% of five minutes of the load, which the
// error-rate alert must see; three were not always.
func postgresRestart(ctx context.Context, s *suite) result {
	return dependencyDown(ctx, s, s.pg, 10*time.Second)
}

// rollingRestart restarts both replicas of the service the load reaches, one after the other
// (out of the ingress, SIGTERM, drain, start, ready, back in), under load, as Kubernetes rolls a
// Deployment: no request may fail.
func rollingRestart(ctx context.Context, s *suite) result {
	var res result
	load := s.startLoad(ctx, true)
	sleep(ctx, baseline)
	for _, name := range []string{replicas + ".2", replicas} {
		started := time.Now()
		err := s.make(ctx, "drain-"+name+".log", "drain", "SVC="+name)
		if d := time.Since(started); err == nil && d > maxReplicaDrains {
			err = fmt.Errorf("drained in %s (bound %s)", d.Round(time.Second), maxReplicaDrains)
		}
		if err == nil {
			sleep(ctx, 2*time.Second) // the other replica alone takes the load
			err = s.restart(ctx, name)
		}
		if err != nil {
			res.fail("%s: %v", name, err)
			break
		}
		sleep(ctx, 2*time.Second)
	}
	s.settle(ctx, &res, load.stop(), time.Time{}, deliveryBound)
	if len(res.errors) > 0 {
		res.fail("requests failed during the rolling restart: %s", errorsText(res.errors))
	}
	return res
}

// receiverDown has the integrator's receiver answer 503 for 40 s under load: every delivery
// arrives once it is back, under the webhook-id its failed attempts carried. Forty seconds of
// failures are well over a quarter of five minutes of attempts, which the delivery-failure alert
// watches; fifteen were not always.
func receiverDown(ctx context.Context, s *suite) result {
	var res result
	load := s.startLoad(ctx, false)
	sleep(ctx, 2*time.Second)
	s.hooks.setFailing(true)
	sleep(ctx, 40*time.Second)
	s.hooks.setFailing(false)
	restored := time.Now()
	sleep(ctx, 2*time.Second)
	t := load.stop()
	s.settle(ctx, &res, t, restored, retryBound)
	if s.hooks.refusedCount(t.acked) == 0 {
		res.fail("no delivery met the failing receiver")
	}
	if len(res.errors) > 0 {
		res.fail("requests failed: %s", errorsText(res.errors))
	}
	return res
}

// killIntegrations kills both integrations processes (kill -9) while a delivery job is being sent
// to a slow receiver, and starts them again: the job is counted stuck once past its timeout,
// every delivery completes within rescueBound of the restart, and no delivery job is left running
// nor delivery pending.
func killIntegrations(ctx context.Context, s *suite) result {
	var res result
	const burst = 100
	t := newTally()
	// Slow enough that a job seen attempting is still attempting when the kill lands.
	s.hooks.setDelay(5 * time.Second)
	var wg sync.WaitGroup
	for range burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			email, id := s.c.nextEvent()
			o, acked := s.c.inbound(ctx, email, id)
			if !acked {
				email = ""
			}
			t.record(o, email)
		}()
	}
	wg.Wait()
	// The burst is more than the account's slots, so some deliveries are handed to queued jobs:
	// the kill waits for one of those to be attempting, the stuck delivery the alert is about.
	attempting, err := s.waitAttemptingJob(ctx, time.Minute)
	if err != nil {
		res.fail("%v", err)
	} else if !attempting {
		res.fail("no delivery job was attempting within a minute of the burst, so none was killed mid-attempt")
	}
	killed := time.Now()
	if err := s.signal(syscall.SIGKILL, replicas, replicas+".2"); err != nil {
		res.fail("%v", err)
	}
	// Down long enough to be scraped as down (a platform restarts a killed pod no faster).
	s.mon.waitRaised(ctx, []string{"BizassistTargetDown"}, killed, 20*time.Second)
	s.hooks.setDelay(0)
	for _, name := range []string{replicas, replicas + ".2"} {
		if err := s.restart(ctx, name); err != nil {
			res.fail("%s: %v", name, err)
		}
	}
	restarted := time.Now()
	s.settle(ctx, &res, t, restarted, rescueBound)
	if len(res.errors) > 0 {
		res.fail("burst requests failed: %s", errorsText(res.errors))
	}
	// A delivery the killed processes held is a running job (rescued by River) or a first attempt
	// claimed by a dispatcher (queued by the sweeper once the claim runs out); either way it must
	// end delivered, even when the receiver had already seen it.
	var left string
	for {
		out, err := s.pg.query(ctx, `SELECT (SELECT count(*) FROM integrations.river_job WHERE state = 'running') || ' running jobs, ' ||
			(SELECT count(*) FROM integrations.deliveries WHERE status = 'pending') || ' pending deliveries'`)
		if err != nil {
			res.fail("%v", err)
			break
		}
		if left = out; left == "0 running jobs, 0 pending deliveries" || time.Since(restarted) > rescueBound {
			break
		}
		sleep(ctx, time.Second)
	}
	if left != "0 running jobs, 0 pending deliveries" {
		res.fail("%s %s after the restart", left, rescueBound)
	}
	// Recovery ends when the last delivery the killed workers held is done.
	res.recovery = max(res.recovery, time.Since(restarted))
	return res
}

// waitAttemptingJob polls integrations' queue until a delivery job has been running for a second
// (it holds a slot and waits on the receiver), for at most bound.
func (s *suite) waitAttemptingJob(ctx context.Context, bound time.Duration) (bool, error) {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		out, err := s.pg.query(ctx, `SELECT count(*) FROM integrations.river_job
			WHERE kind = 'integrations.delivery' AND state = 'running' AND attempted_at < now() - interval '1 second'`)
		if err != nil || out != "0" {
			return err == nil, err
		}
		sleep(ctx, 100*time.Millisecond)
	}
	return false, nil
}
