package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bizassist/bizassist/libs/allowance/allowancetest"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsserver/dnstest"
	"github.com/bizassist/bizassist/services/leads/internal/service"
)

// The benchmarks run the real server in-process over loopback HTTP against a migrated database
// holding a big catalog, named by LEADS_BENCH_DATABASE_URL (schema leads), e.g. one loaded with
// `catalog-gen -n 1000000 -seed 7` and `leads catalog import`. Concurrency is 8 (RunParallel with
// 4 goroutines per CPU on 2 CPUs); each reports p50 and p99 in milliseconds. make bench measures
// the same scenarios through the ingress (tools/loadgen/scenarios/leads.yaml). Allowances are
// reserved with the loopback analytics double (no plan caps), so every search and batch pays the
// reservation's round trip as it does in the stack.

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
	iss := jwttest.NewIssuer(b)
	environ := platformtest.Env(b, service.Name, iss.JWKSURL())
	environ["DATABASE_URL"] = url
	environ["RATELIMIT_EXEMPT_CIDRS"] = "127.0.0.1/32"
	pool, err := pgkit.Open(context.Background(), pgtest.Config(pgtest.Database{URL: url}, service.Name))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	environ["LEADS_DNS_SERVER"] = dnstest.Start(b, service.DNSZone(pool))
	environ["LEADS_CACHE_PREFIX"] = environ["RATELIMIT_PREFIX"] + ":"
	environ["ANALYTICS_URL"] = allowancetest.New(b, iss.Config(), allowancetest.Limits{}).URL
	ln, base := platformtest.Listen(b)
	platformtest.Start(b, ln, service.New, environ)
	tok := iss.Token(authjwt.Caller{AccountID: ids.New("acc"), Email: "bench@bizassist.test", Plan: "growth", TokenID: ids.New("tok")})
	return &benchServer{url: base, token: tok, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
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

// BenchmarkLeadFinderRadius: the selective search around Austin's point instead of in the city.
func BenchmarkLeadFinderRadius(b *testing.B) {
	s := newBenchServer(b)
	measure(b, s, http.MethodPost, "/api/lead-finder", `{"industry":"plumbers","location":"Austin TX","radiusMiles":25,"limit":10}`)
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
