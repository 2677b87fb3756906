package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsresolver"
	"github.com/bizassist/bizassist/services/leads/internal/dnsserver/dnstest"
	"github.com/bizassist/bizassist/services/leads/internal/service"
)

// The benchmarks run the real server in-process over loopback HTTP against a migrated database
// holding a big catalog, named by LEADS_BENCH_DATABASE_URL (schema leads), e.g. one loaded with
// `catalog-gen -n 1000000 -seed 7` and `leads catalog import`. Concurrency is 8 (RunParallel with
// 4 goroutines per CPU on 2 CPUs); each reports p50 and p99 in milliseconds. make bench measures
// the same scenarios through the ingress (tools/loadgen/scenarios/leads.yaml).

const benchWorkersPerCPU = 4

type benchServer struct {
	url, token string
	client     *http.Client
}

func newBenchServer(b *testing.B) *benchServer {
	b.Helper()
	url := os.Getenv("LEADS_BENCH_DATABASE_URL")
	if url == "" {
		b.Skip("set LEADS_BENCH_DATABASE_URL to a database with a loaded leads catalog")
	}
	ctx := context.Background()
	pool, err := pgkit.Open(ctx, pgkit.Config{URL: url, Schema: "leads", MaxConns: 10, MinConns: 1,
		ConnectTimeout: 5 * time.Second, StatementTimeout: 10 * time.Second, MaxConnLifetime: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	rdb, prefix := redistest.New(b)
	iss := jwttest.NewIssuer(b)
	cfg := service.Config{
		HTTP: httpx.ServerConfig{Addr: "127.0.0.1:0", ReadHeaderTimeout: time.Second, ReadTimeout: 5 * time.Second,
			WriteTimeout: 5 * time.Second, IdleTimeout: time.Minute, ShutdownTimeout: time.Second},
		JWT:        iss.Config(),
		RateLimit:  ratelimit.Config{ExemptCIDRs: []string{"127.0.0.1/32"}, KeyPrefix: prefix + "rl"},
		DNS:        dnsresolver.Config{Server: dnstest.Start(b, service.DNSZone(pool)), Timeout: time.Second, CacheSize: 50000, MinTTL: time.Minute, MaxTTL: time.Hour, NegativeTTL: time.Minute},
		UpgradeURL: "https://bizassist.test/pricing",
	}
	s, err := service.Build(pool, rdb, cfg, prefix)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	b.Cleanup(srv.Close)
	tok := iss.Token(authjwt.Caller{AccountID: ids.New("acc"), Email: "bench@bizassist.test", Plan: "growth", TokenID: ids.New("tok")})
	return &benchServer{url: srv.URL, token: tok, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
}

func (s *benchServer) call(method, path, body string) error {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return nil
}

// measure runs the request b.N times at concurrency 8 and reports latency percentiles.
func measure(b *testing.B, s *benchServer, method, path, body string) {
	b.Helper()
	if err := s.call(method, path, body); err != nil { // warm caches and connections
		b.Fatal(err)
	}
	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, b.N)
	)
	b.SetParallelism(benchWorkersPerCPU)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			start := time.Now()
			if err := s.call(method, path, body); err != nil {
				b.Error(err)
				return
			}
			local = append(local, time.Since(start))
		}
		mu.Lock()
		latencies = append(latencies, local...)
		mu.Unlock()
	})
	b.StopTimer()
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(p*float64(len(latencies))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

func BenchmarkLeadFinderSelective(b *testing.B) {
	s := newBenchServer(b)
	measure(b, s, http.MethodPost, "/api/lead-finder", `{"industry":"plumbers","location":"Austin, TX","limit":10}`)
}

func BenchmarkLeadFinderBroadest(b *testing.B) {
	s := newBenchServer(b)
	measure(b, s, http.MethodPost, "/api/lead-finder", `{"industry":"restaurants","limit":50}`)
}

func BenchmarkLeadQualifyWarm(b *testing.B) {
	s := newBenchServer(b)
	measure(b, s, http.MethodGet, "/api/lead-qualify?email=melissa@familychicagowellnessspa.com&phone=%2B13127799293&businessName=Family+Chicago+Wellness+Spa", "")
}

func BenchmarkLeadQualityBatch25(b *testing.B) {
	s := newBenchServer(b)
	leads := make([]map[string]string, 25)
	for i := range leads {
		leads[i] = map[string]string{"email": fmt.Sprintf("lead%d@familychicagowellnessspa.com", i),
			"phone": fmt.Sprintf("+1312779%04d", 9200+i), "businessName": "Family Chicago Wellness Spa"}
	}
	body, _ := json.Marshal(map[string]any{"leads": leads})
	measure(b, s, http.MethodPost, "/api/lead-quality-batch", string(body))
}
