package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// The alert the suite fires all the way, through Alertmanager to its receiver: rendered with a
// short `for` (the chart value prometheusRule.forOverrides), since the shipped 5m outlasts a fault.
const (
	firedAlert    = "BizassistRateLimitFallback"
	firedAlertFor = "5s"
)

// Bounds of the alert checks.
const (
	// alertRaiseBound: how long after a fault ends its alerts may still become active. The SLO
	// rules are evaluated once a minute, in two steps (the 5m rates, then the ratios).
	alertRaiseBound = 150 * time.Second
	// alertResolveBound: how long after the last fault every alert it raised must have resolved.
	// The longest window an alert looks back over for a fault this short is five minutes.
	alertResolveBound = 6 * time.Minute
	quietRun          = 60 * time.Second // normal load that must raise no alert at all
)

// slowToResolve are alerts whose windows outlast any test, with why: raised, they stay active
// long after the fault. The suite does not wait for them, and its table says so.
var slowToResolve = map[string]string{
	// The page's six-hour branch: on a stack younger than its 30-minute short window, one
	// outage's errors are most of what that window holds.
	"BizassistSLOBurnRatePage":   "30m window",
	"BizassistSLOBurnRateTicket": "2h window",
}

// episode is one alert (its name and labels) being active, from when Prometheus's expression
// turned true until it no longer was.
type episode struct {
	name, labels string
	from, to     time.Time // to is zero while active
	firing       bool      // past its for: sent to Alertmanager
}

func (e *episode) String() string { return e.name + "{" + e.labels + "}" }

// monitor watches Prometheus's active alerts for the whole run and keeps each episode.
type monitor struct {
	api promv1.API
	mu  sync.Mutex
	// open are the episodes active at the last poll, by alert key; all is every episode seen.
	open map[string]*episode
	all  []*episode
	// notified is what reached the suite's Alertmanager receiver: "firing"/"resolved" per alert.
	notified map[string]map[string]bool
	pollErr  error
}

func newMonitor() *monitor {
	return &monitor{open: map[string]*episode{}, notified: map[string]map[string]bool{}}
}

// connect points the monitor at the stack's Prometheus (PROMETHEUS_URL of .devstack/env).
func (m *monitor) connect(prometheusURL string) error {
	if prometheusURL == "" {
		return errors.New("the stack runs no Prometheus (.devstack/env has no PROMETHEUS_URL)")
	}
	c, err := promapi.NewClient(promapi.Config{Address: prometheusURL})
	if err != nil {
		return err
	}
	m.api = promv1.NewAPI(c)
	return nil
}

// watch polls the active alerts every second until ctx ends.
func (m *monitor) watch(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		m.poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (m *monitor) poll(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := m.api.Alerts(pctx)
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pollErr = err
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, a := range res.Alerts {
		name := string(a.Labels["alertname"])
		var labels []string
		for k, v := range a.Labels {
			if k != "alertname" && k != "severity" {
				labels = append(labels, fmt.Sprintf("%s=%s", k, v))
			}
		}
		sort.Strings(labels)
		key := name + "{" + strings.Join(labels, ",") + "}"
		seen[key] = true
		e := m.open[key]
		if e == nil {
			e = &episode{name: name, labels: strings.Join(labels, ","), from: a.ActiveAt}
			m.open[key] = e
			m.all = append(m.all, e)
		}
		e.firing = e.firing || a.State == promv1.AlertStateFiring
	}
	for key, e := range m.open {
		if !seen[key] {
			e.to = now
			delete(m.open, key)
		}
	}
}

// raisedBetween lists the episodes that began in [from, to].
func (m *monitor) raisedBetween(from, to time.Time) []*episode {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*episode
	for _, e := range m.all {
		if !e.from.Before(from) && !e.from.After(to) {
			out = append(out, e)
		}
	}
	return out
}

// waitRaised waits until every alert named in want has an episode that began at or after from,
// for at most bound, and returns the names still missing.
func (m *monitor) waitRaised(ctx context.Context, want []string, from time.Time, bound time.Duration) []string {
	deadline := time.Now().Add(bound)
	for {
		raised := map[string]bool{}
		for _, e := range m.raisedBetween(from, time.Now()) {
			raised[e.name] = true
		}
		var missing []string
		for _, name := range want {
			if !raised[name] {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return missing
		}
		sleep(ctx, time.Second)
	}
}

// waitResolved waits until no episode is active but those of slowToResolve, for at most bound,
// and returns those still active.
func (m *monitor) waitResolved(ctx context.Context, bound time.Duration) []*episode {
	deadline := time.Now().Add(bound)
	for {
		active := m.active()
		if len(active) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return active
		}
		sleep(ctx, 2*time.Second)
	}
}

// active lists the episodes active now, but those of slowToResolve.
func (m *monitor) active() []*episode {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*episode
	for _, e := range m.open {
		if _, slow := slowToResolve[e.name]; !slow {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// receive is the Alertmanager webhook receiver: it records each alert's notified statuses.
func (m *monitor) receive(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Alerts []struct {
			Status string            `json:"status"`
			Labels map[string]string `json:"labels"`
		} `json:"alerts"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range msg.Alerts {
		name := a.Labels["alertname"]
		if m.notified[name] == nil {
			m.notified[name] = map[string]bool{}
		}
		m.notified[name][a.Status] = true
	}
	w.WriteHeader(http.StatusNoContent)
}

// serveReceiver listens on loopback for Alertmanager and returns the URL to give it.
func (m *monitor) serveReceiver() (url string, closeFn func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(m.receive), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/alerts", func() { _ = srv.Close() }, nil
}

// wasNotified says whether Alertmanager sent the receiver an alert's status.
func (m *monitor) wasNotified(name, status string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.notified[name][status]
}

// alertChecks holds a fault to its alert column: each wanted alert raised while it lasted (or
// within alertRaiseBound after). It records in res what was raised.
func (s *suite) alertChecks(ctx context.Context, res *result, want []string, from time.Time) {
	res.want = want
	for _, name := range s.mon.waitRaised(ctx, want, from, alertRaiseBound) {
		res.fail("alert %s did not become active", name)
	}
	res.end = time.Now()
	res.raised = s.mon.raisedBetween(from, res.end)
}

// quietRun is the first row: the stack under normal load (the inbound events and reads of every
// fault, and the mix of every other route) raises no alert, and no request fails.
func (s *suite) quietRun(ctx context.Context) result {
	res := result{fault: fmt.Sprintf("quiet run %s", quietRun), recovery: -1}
	from := time.Now()
	stop := s.startNormalLoad(ctx)
	refused, overLimitErr := s.overLimit(ctx)
	sleep(ctx, quietRun-time.Since(from))
	t := stop()
	if overLimitErr != nil {
		res.fail("a client over its per-IP limit: %v", overLimitErr)
	}
	// What the last seconds of load did is evaluated a little later.
	sleep(ctx, 2*time.Second)
	res.end = time.Now()
	res.raised = s.mon.raisedBetween(from, res.end)
	for _, e := range res.raised {
		res.fail("alert %s became active with nothing wrong", e)
	}
	res.errors = t.errors
	if len(t.errors) > 0 {
		res.fail("requests failed with nothing wrong: %s", errorsText(t.errors))
	}
	res.summary = fmt.Sprintf("none (%d requests over the per-IP limit refused)", refused)
	if len(res.raised) > 0 {
		res.summary = ""
	}
	return res
}

// overLimit is a client that sends more than the per-IP limit allows (60 a minute) at once, as
// clients do: the excess is refused with 429, which is no failure and raises no alert, and the
// rate-limiting dashboard has refusals to show.
func (s *suite) overLimit(ctx context.Context) (refused int, err error) {
	const requests = 75
	for range requests {
		switch rerr := s.overLimitClient.Do(ctx, http.MethodGet, "/api/health-score", nil, nil); {
		case rerr == nil:
		case statusOf(rerr) == "429":
			refused++
		default:
			return refused, rerr
		}
	}
	if refused == 0 {
		return 0, fmt.Errorf("none of %d requests in a row was refused", requests)
	}
	return refused, nil
}

// startNormalLoad runs runLoad and the normal mix until the returned function is called, which
// returns their joint tally.
func (s *suite) startNormalLoad(ctx context.Context) func() *tally {
	load := s.startLoad(ctx, true)
	mctx, cancel := context.WithCancel(ctx)
	mixed := newTally()
	done := make(chan struct{})
	go func() { defer close(done); runMixedLoad(mctx, s.full, mixed) }()
	return func() *tally {
		cancel()
		<-done
		t := load.stop()
		for status, n := range mixed.errors {
			t.errors[status] += n
		}
		return t
	}
}

// settleAlerts waits, under normal load, until every alert the faults raised has resolved, then
// fails the row of each one still active, and the row of firedAlert unless Alertmanager sent its
// receiver the alert firing and then resolved.
func (s *suite) settleAlerts(ctx context.Context, rs []result) {
	stop := s.startNormalLoad(ctx)
	s.mon.waitResolved(ctx, alertResolveBound)
	stop()
	for i := range rs {
		r := &rs[i]
		for _, e := range r.raised {
			if _, slow := slowToResolve[e.name]; e.to.IsZero() && !slow {
				r.fail("alert %s still active %s after the last fault", e, alertResolveBound)
			}
		}
		if slices.Contains(r.want, firedAlert) {
			for _, status := range []string{"firing", "resolved"} {
				if !s.mon.wasNotified(firedAlert, status) {
					r.fail("Alertmanager did not send the receiver %s %s", firedAlert, status)
				}
			}
		}
	}
}

// alertText is a row's alert column: each wanted alert with the furthest state it reached
// (pending; firing, and notified when the receiver got it) and when it resolved after the fault,
// then the other alerts the fault raised.
func (r result) alertText(m *monitor) string {
	if r.want == nil && len(r.raised) == 0 {
		return "none"
	}
	var parts []string
	for _, name := range r.want {
		var raised, firing, open bool
		var last time.Time
		for _, e := range r.raised {
			if e.name != name {
				continue
			}
			raised, firing = true, firing || e.firing
			if e.to.IsZero() {
				open = true
			} else if e.to.After(last) {
				last = e.to
			}
		}
		part := strings.TrimPrefix(name, "Bizassist")
		switch {
		case !raised:
			part += " not raised"
		case firing && m.wasNotified(name, "firing"):
			part += " firing, notified"
		case firing:
			part += " firing"
		default:
			part += " pending"
		}
		switch {
		case !raised:
		case open && slowToResolve[name] != "":
			part += ", resolves after its " + slowToResolve[name]
		case open:
			part += ", unresolved"
		default:
			part += fmt.Sprintf(", resolved +%s", max(last.Sub(r.end), 0).Round(time.Second))
		}
		parts = append(parts, part)
	}
	var also []string
	for _, e := range r.raised {
		if name := strings.TrimPrefix(e.name, "Bizassist"); !slices.Contains(r.want, e.name) && !slices.Contains(also, name) {
			also = append(also, name)
		}
	}
	if len(also) > 0 {
		sort.Strings(also)
		parts = append(parts, "also "+strings.Join(also, " "))
	}
	return strings.Join(parts, "; ")
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
