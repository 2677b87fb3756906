package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/bizassist/bizassist/tools/internal/openloop"
)

// The overload row (issue 38, item 1): each route class is driven open loop past the capacity
// measured on this machine at the start of the row, and the stack must shed the excess in its
// own words and keep serving what it admits. overloadFactors are the multiples of the measured
// capacity each class is driven at.
var overloadFactors = []int{2, 5}

const (
	overloadHold      = 30 * time.Second // each multiple is held this long
	overloadRecovery  = 10 * time.Second // normal service again this soon after the load ends
	overloadProbe     = 2 * time.Second  // each rate of the capacity search
	overloadMaxRate   = 20_000           // the search's ceiling: beyond the generator's own
	overloadSteps     = 7                // the search's probes
	overloadWorkers   = 4_000            // vegeta's bound on requests in flight
	overloadBodyBytes = 512              // of each refusal, kept to check its envelope
)

// overloadClass is one route class: a target, the status it answers when served, and the aim
// its capacity is held within (the p99 of tools/loadgen's scenario for the same route).
type overloadClass struct {
	name   string
	expect int
	aim    time.Duration
	target func(s *suite) vegeta.Target
}

// overloadClasses are a CPU-bound route (argon2id, bounded by identity's hashing budget) and a
// database-bound one (integrations, through its PostgreSQL pool).
var overloadClasses = []overloadClass{
	{"sign-in", http.StatusOK, 250 * time.Millisecond, func(s *suite) vegeta.Target {
		body, _ := json.Marshal(map[string]string{"email": s.growthEmail, "password": s.password})
		return vegeta.Target{Method: http.MethodPost, URL: s.c.base + "/api/auth", Body: body,
			Header: http.Header{"Content-Type": {"application/json"}}}
	}},
	{"read", http.StatusOK, 25 * time.Millisecond, func(s *suite) vegeta.Target {
		return vegeta.Target{Method: http.MethodGet, URL: s.c.base + "/api/ext-webhook/subscriptions",
			Header: http.Header{"Authorization": {"Bearer " + s.c.api.Token}}}
	}},
}

// overload runs every class in turn under the normal load, whose acknowledged events must all be
// delivered as in every other row.
func overload(ctx context.Context, s *suite) result {
	var res result
	load := s.startLoad(ctx, true)
	statuses := map[string]int{}
	var recovery time.Duration
	for _, c := range overloadClasses {
		recovery = max(recovery, s.overloadClass(ctx, &res, c, statuses))
	}
	t := load.stop()
	s.settle(ctx, &res, t, time.Time{}, deliveryBound)
	res.recovery = recovery
	for status, n := range statuses {
		res.errors[status] += n
	}
	for status, n := range res.errors {
		if status != "503" && status != "429" {
			res.fail("%d requests failed with %s (an overloaded stack refuses with 503 or 429 only)", n, status)
		}
	}
	return res
}

// overloadClass measures c's capacity, holds each factor of it, and returns how long after the
// overload answers still failed or missed the aim.
func (s *suite) overloadClass(ctx context.Context, res *result, c overloadClass, statuses map[string]int) time.Duration {
	tgt := c.target(s)
	hc := s.c.hc
	served := openloop.Status(c.expect)
	search := openloop.Search{Seed: 100, MaxRate: overloadMaxRate, MaxSteps: overloadSteps, Probe: overloadProbe,
		Options: openloop.Options{MaxWorkers: overloadWorkers}}
	capacity := search.Capacity(ctx, hc, tgt, c.aim, served, nil)
	if capacity == 0 {
		res.fail("%s: held no rate within its aim of %s, even 1/s", c.name, c.aim)
		return 0
	}
	search.Seed = capacity
	ceiling, err := search.Ceiling(ctx, hc, tgt, c.aim)
	if err != nil {
		res.fail("%s: the generator's own ceiling: %v", c.name, err)
	}
	s.note("%s: capacity %d/s within p99 %s; the generator's own ceiling for these requests %d/s", c.name, capacity, c.aim, ceiling)
	atk := search.Options
	atk.MaxBody = overloadBodyBytes
	for _, factor := range overloadFactors {
		o := newOverloadRun()
		run := openloop.Attack(ctx, hc, tgt, factor*capacity, overloadHold, atk, overloadCheck(c.expect), o.record)
		o.report(s, res, c, factor, run, statuses)
	}
	// Normal service again: half the capacity, every answer served within the aim, no later
	// than overloadRecovery after the overload ended.
	ended := time.Now()
	var lastBad time.Time
	rate := max(capacity/2, 1)
	openloop.Attack(ctx, hc, tgt, rate, overloadRecovery+5*time.Second, atk, served, func(r *vegeta.Result, latency time.Duration, problem string) {
		if problem != "" || latency > c.aim {
			if r.End().After(lastBad) {
				lastBad = r.End()
			}
		}
	})
	rec := time.Duration(0)
	if !lastBad.IsZero() {
		rec = max(lastBad.Sub(ended), 0)
	}
	if rec > overloadRecovery {
		res.fail("%s: at half its capacity, answers still failed or missed the aim %s after the overload (bound %s)", c.name, rec.Round(100*time.Millisecond), overloadRecovery)
	}
	return rec
}

// overloadRun tallies one factor's answers (openloop.Attack hands them over one at a time):
// served, refused by status, and the refusals that were not the envelope with Retry-After.
type overloadRun struct {
	admitted []time.Duration // latencies of the served requests
	refused  map[string]int
	bad      map[string]int // problem -> count
}

func newOverloadRun() *overloadRun {
	return &overloadRun{refused: map[string]int{}, bad: map[string]int{}}
}

// overloadCheck admits the served status and a refusal (503 or 429) in the error envelope with
// Retry-After; anything else is a problem, named.
func overloadCheck(expect int) openloop.Check {
	return func(r *vegeta.Result) string {
		switch {
		case r.Error != "" && r.Code == 0:
			return "transport error: " + r.Error
		case int(r.Code) == expect:
			return ""
		case r.Code == http.StatusServiceUnavailable || r.Code == http.StatusTooManyRequests:
			var env struct {
				OK    *bool  `json:"ok"`
				Error string `json:"error"`
			}
			if json.Unmarshal(r.Body, &env) != nil || env.OK == nil || *env.OK || env.Error == "" {
				return fmt.Sprintf("%d without the error envelope", r.Code)
			}
			if r.Headers.Get("Retry-After") == "" {
				return fmt.Sprintf("%d without Retry-After", r.Code)
			}
			return ""
		default:
			return fmt.Sprintf("status %d", r.Code)
		}
	}
}

func (o *overloadRun) record(r *vegeta.Result, latency time.Duration, problem string) {
	switch {
	case problem != "":
		o.bad[problem]++
	case r.Code == http.StatusServiceUnavailable || r.Code == http.StatusTooManyRequests:
		o.refused[strconv.Itoa(int(r.Code))]++
	default:
		o.admitted = append(o.admitted, latency)
	}
}

// report notes the factor's figures and fails res for what broke a promise: an answer that is
// neither served nor a proper refusal, or admitted requests slower than twice the aim.
func (o *overloadRun) report(s *suite, res *result, c overloadClass, factor int, run openloop.Run, statuses map[string]int) {
	served := slices.Clone(o.admitted)
	slices.Sort(served)
	p99 := openloop.Percentile(served, 99)
	s.note("%s at %dx (%d/s for %s): %d sent, %d unsent by the generator, %d served (p99 %s), refused %s, other %d",
		c.name, factor, run.Rate, overloadHold, run.Requests, run.Unsent, len(o.admitted), p99.Round(100*time.Microsecond),
		errorsText(o.refused), len(o.bad))
	for status, n := range o.refused {
		statuses[status] += n
	}
	for problem, n := range o.bad {
		res.fail("%s at %dx: %d answers: %s", c.name, factor, n, problem)
	}
	if len(o.admitted) == 0 {
		res.fail("%s at %dx: nothing was served", c.name, factor)
	} else if p99 > 2*c.aim {
		res.fail("%s at %dx: the served requests' p99 %s is over twice the aim (%s)", c.name, factor, p99.Round(time.Millisecond), 2*c.aim)
	}
}
