package service_test

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchHTTP sends b.N requests from concurrent keep-alive clients and reports requests/s and
// the 99th-percentile latency.
func benchHTTP(b *testing.B, s *stack, clients int, method, path, token, body string) {
	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	client := &http.Client{Transport: transport}
	defer transport.CloseIdleConnections()
	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, b.N)
		wg        sync.WaitGroup
		next      = make(chan struct{}, b.N)
	)
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	b.ResetTimer()
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				var rd io.Reader
				if body != "" {
					rd = strings.NewReader(body)
				}
				req, _ := http.NewRequest(method, s.base+path, rd)
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("X-Forwarded-For", bulkIP)
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
				d := time.Since(t0)
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "req/s")
	if len(latencies) > 0 {
		b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// BenchmarkLogUsageHTTP is log-usage from 128 clients through the in-process server: token check, validation and
// a durable commit per request (group commit).
//
//	go test -run '^$' -bench LogUsageHTTP -benchtime 20000x ./internal/service
func BenchmarkLogUsageHTTP(b *testing.B) {
	s := newBenchStack(b, "HEALTH_DIRTY_INTERVAL", "5s")
	benchHTTP(b, s, 128, http.MethodPost, "/api/log-usage", s.token(b, "acc_bench", "growth"), `{"feature":"chat","action":"send_message","meta":{"page":"/dashboard"}}`)
	m := scrape(b, s.base+"/metrics")
	b.ReportMetric(m["bizassist_analytics_usage_batch_events_sum"]/m["bizassist_analytics_usage_batch_events_count"], "events/batch")
	b.ReportMetric(1000*m["bizassist_analytics_usage_batch_seconds_sum"]/m["bizassist_analytics_usage_batch_seconds_count"], "ms/batch")
}

// scrape reads the unlabelled samples of a Prometheus text exposition.
func scrape(b *testing.B, url string) map[string]float64 {
	resp, err := http.Get(url) //nolint:noctx // test-local URL
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := map[string]float64{}
	for _, line := range strings.Split(string(raw), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	return out
}

// BenchmarkHealthScoreHTTP is health-score from 8 clients through the in-process server.
//
//	go test -run '^$' -bench HealthScoreHTTP -benchtime 20000x ./internal/service
func BenchmarkHealthScoreHTTP(b *testing.B) {
	s := newBenchStack(b)
	benchHTTP(b, s, 8, http.MethodGet, "/api/health-score", s.token(b, "acc_bench", "growth"), "")
}

// BenchmarkReserveHTTP is reservations from 16 clients for one account and feature, the worst
// case: all of them are decided under the same lock, a batch per transaction (group commit).
//
//	go test -run '^$' -bench ReserveHTTP -benchtime 5000x ./internal/service
func BenchmarkReserveHTTP(b *testing.B) {
	s := newBenchStack(b, "HEALTH_DIRTY_INTERVAL", "5s")
	benchHTTP(b, s, 16, http.MethodPost, "/internal/usage/reserve", s.token(b, "acc_bench", "full_stack"), `{"feature":"chat","count":1}`)
}
