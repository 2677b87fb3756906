package openloop

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The search finds the highest rate a route holds within 10%, whichever side of it it starts on,
// within its bounds.
func TestCapacitySearchConverges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                    string
		seed, maxRate, maxSteps int
		limit                   int // the route holds every rate up to this
		want                    [2]int
	}{
		{"from below", 100, 50_000, 12, 730, [2]int{657, 730}},
		{"from above", 5_000, 50_000, 12, 730, [2]int{657, 730}},
		{"the seed is the limit", 730, 50_000, 12, 730, [2]int{657, 730}},
		{"nothing holds", 100, 50_000, 12, 0, [2]int{0, 0}},
		{"everything holds, up to the bound", 100, 1_000, 12, 1 << 30, [2]int{1_000, 1_000}},
		{"one request a second", 40, 50_000, 12, 1, [2]int{1, 1}},
	} {
		var probes []int
		got := FindCapacity(tc.seed, tc.maxRate, tc.maxSteps, func(rate int) bool {
			probes = append(probes, rate)
			return rate <= tc.limit
		})
		require.GreaterOrEqual(t, got, tc.want[0], "%s: probes %v", tc.name, probes)
		require.LessOrEqual(t, got, tc.want[1], "%s: probes %v", tc.name, probes)
		require.LessOrEqual(t, len(probes), tc.maxSteps, tc.name)
		for _, r := range probes {
			require.LessOrEqual(t, r, tc.maxRate, tc.name)
			require.GreaterOrEqual(t, r, 1, tc.name)
		}
	}
}

// With few steps the search returns the best rate it saw hold, never one that failed.
func TestCapacitySearchIsBounded(t *testing.T) {
	t.Parallel()
	var probes []int
	got := FindCapacity(10, 50_000, 3, func(rate int) bool { probes = append(probes, rate); return rate <= 1_000 })
	require.Equal(t, []int{10, 20, 40}, probes)
	require.Equal(t, 40, got)
}

// A run holds its rate with under 1% errors and p99 within the aim.
func TestARunHoldsWithFewErrorsAndP99WithinAim(t *testing.T) {
	t.Parallel()
	lat := make([]time.Duration, 1000)
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Millisecond // p99 = 990 ms
	}
	run := Run{Requests: 1000, Latencies: lat}
	require.True(t, run.Held(time.Second))
	require.False(t, run.Held(900*time.Millisecond), "p99 over the aim")
	run.Errors = 10
	require.False(t, run.Held(time.Second), "1% errors")
	require.False(t, Run{}.Held(time.Second), "nothing sent")
}

// A result's latency runs from its slot on the schedule, not from when a worker got to send it.
func TestLatencyRunsFromTheIntendedSendTime(t *testing.T) {
	t.Parallel()
	began := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	interval := 10 * time.Millisecond
	// Seq 4 is due at began + 50 ms; sent 200 ms late, answered in 5 ms.
	late := &vegeta.Result{Seq: 4, Timestamp: began.Add(250 * time.Millisecond), Latency: 5 * time.Millisecond}
	require.Equal(t, 205*time.Millisecond, intendedLatency(late, began, interval))
	onTime := &vegeta.Result{Seq: 0, Timestamp: began.Add(interval), Latency: 3 * time.Millisecond}
	require.Equal(t, 3*time.Millisecond, intendedLatency(onTime, began, interval))
}

// The requests go out on schedule while earlier ones are still unanswered: the receiver holds the
// first request until the fifth has arrived, which a closed loop of one worker could never send.
// The first request's latency then covers at least the four intervals to the fifth's slot.
func TestTheOpenLoopSendsOnScheduleWhateverTheAnswers(t *testing.T) {
	t.Parallel()
	const rate, held = 50, 4 // the first request waits for request 4 (0-based)
	arrived := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seq, _ := strconv.Atoi(r.Header.Get("X-Vegeta-Seq"))
		switch {
		case seq == 0:
			select {
			case <-arrived:
			case <-r.Context().Done():
			}
		case seq >= held:
			once.Do(func() { close(arrived) })
		}
		if seq == 7 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)

	hc := srv.Client()
	hc.Timeout = 10 * time.Second // a machine stalled past the schedule's end fails here, not forever
	run := Attack(context.Background(), hc, vegeta.Target{Method: http.MethodGet, URL: srv.URL},
		rate, 10*time.Second/rate, Options{MaxWorkers: 100}, Status(http.StatusNoContent), nil)
	require.Equal(t, 10, run.Requests+run.Unsent, "the schedule's requests")
	require.Greater(t, run.Requests, 7)
	require.Equal(t, 1, run.Errors, "the answer other than the expected status")
	require.Len(t, run.Latencies, run.Requests)
	require.Contains(t, run.FirstError, "500")
	slowest := run.Latencies[len(run.Latencies)-1]
	require.GreaterOrEqual(t, slowest, held*time.Second/rate, "the held request counts the wait for the later ones")
}

// With one worker the schedule slips behind a slow answer, and the requests that should have
// gone out meanwhile count the slip: a closed loop would report their service time alone.
func TestASlippedScheduleCountsInTheLatencies(t *testing.T) {
	t.Parallel()
	const rate = 100
	release := make(chan struct{})
	var first sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		blocked := false
		first.Do(func() { blocked = true })
		if blocked {
			<-release
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	// The first answer comes only after 20 intervals have passed on the wall clock.
	time.AfterFunc(20*time.Second/rate, func() { close(release) })
	run := Attack(context.Background(), srv.Client(), vegeta.Target{Method: http.MethodGet, URL: srv.URL},
		rate, 5*time.Second/rate, Options{MaxWorkers: 1}, Status(http.StatusOK), nil)
	// The second request was due one interval after the first but could go out only after the
	// first answer, 20 intervals in; then the schedule's 5 intervals were over, and the other
	// three were never sent.
	require.Equal(t, 2, run.Requests)
	require.Equal(t, 3, run.Unsent)
	require.Zero(t, run.Errors)
	require.GreaterOrEqual(t, run.Latencies[1], 18*time.Second/rate, "the second request counts its wait behind the first")
	require.InDelta(t, 0.6, run.ErrorRate(), 1e-9, "unsent requests count as failures")
}

// At low rates a run is held long enough for its percentiles to mean something, within a bound.
func TestLowRatesAreHeldLongerForTheirPercentiles(t *testing.T) {
	t.Parallel()
	require.Equal(t, 2*time.Second, Long(2*time.Second, 1000, ProbeSamples))
	require.Equal(t, 4*time.Second, Long(2*time.Second, 50, ProbeSamples))
	require.Equal(t, MaxRunLength, Long(2*time.Second, 1, ProbeSamples))
}

// The ceiling's server is reached with the generator's own transport settings, over TLS, and
// answers the target's requests (any method, path and body) without doing anything; the
// generator's client is left trusting what it trusted.
func TestTheCeilingsServerAnswersTheTargetsRequestsWithNothing(t *testing.T) {
	t.Parallel()
	tr := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12}}
	srv, client, err := nullServer(&http.Client{Transport: tr, Timeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	require.Nil(t, tr.TLSClientConfig.RootCAs, "the generator's transport is not changed")

	target, err := retarget("https://127.0.0.1:8443/api/leads/find?limit=5", srv.URL)
	require.NoError(t, err)
	require.Equal(t, srv.URL+"/api/leads/find?limit=5", target)
	resp, err := client.Post(target, "application/json", strings.NewReader(`{"industry":"plumbers"}`))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	require.Equal(t, 2, resp.ProtoMajor, "HTTP/2, as the generator's transport asks")

	bare, _, err := nullServer(&http.Client{Transport: &http.Transport{}}) // no TLS settings of its own
	require.NoError(t, err)
	bare.Close()
	_, _, err = nullServer(&http.Client{Transport: roundTripper(nil)})
	require.ErrorContains(t, err, "not an *http.Transport")
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
