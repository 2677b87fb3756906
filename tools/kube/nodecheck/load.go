package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// probe is one request of the load mix and the statuses that count as served. Each service
// gets at least one, through the edge: without credentials the protected routes answer 401
// from the service itself, which still crosses the edge, kube-proxy and the pod.
type probe struct {
	method, path string
	want         []int
}

var mix = []probe{
	{http.MethodGet, "/api/auth/jwks.json", []int{200}},
	{http.MethodGet, "/api/leads", []int{401}},
	{http.MethodPost, "/api/chat", []int{401}},
	{http.MethodGet, "/api/health-score", []int{401}},
	{http.MethodGet, "/api/ext-webhook/subscriptions", []int{401}},
	{http.MethodGet, "/sign-in", []int{200}},
	{http.MethodGet, "/api/openapi.json", []int{200}},
}

// counts are the results of one phase.
type counts struct {
	requests, errors int
	samples          []string
	byKind           map[string]int
}

func (c counts) String() string {
	kinds := make([]string, 0, len(c.byKind))
	for k, n := range c.byKind {
		kinds = append(kinds, fmt.Sprintf("%s x%d", k, n))
	}
	sort.Strings(kinds)
	s := fmt.Sprintf("%d requests, %d errors", c.requests, c.errors)
	if len(kinds) > 0 {
		s += " (" + strings.Join(kinds, ", ") + ")"
	}
	return s
}

// loader sends the mix at a steady rate from many loopback source addresses: each client
// address has its own rate budget in the services, which eight addresses at 20 requests a second
// exhausted after two minutes (429s that are the limiter's doing, not the rollout's).
type loader struct {
	base    string
	clients []*http.Client
	rate    int

	mu  sync.Mutex
	cur counts

	stop chan struct{}
	done sync.WaitGroup
}

func newLoader(base, caFile string, rate, sources int) (*loader, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no certificate", caFile)
	}
	l := &loader{base: base, rate: rate, stop: make(chan struct{}), cur: counts{byKind: map[string]int{}}}
	for i := range sources {
		src := &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(10+i))}
		tr := &http.Transport{
			DialContext:         (&net.Dialer{LocalAddr: src, Timeout: 5 * time.Second}).DialContext,
			TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
			ForceAttemptHTTP2:   true,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     30 * time.Second,
		}
		l.clients = append(l.clients, &http.Client{Transport: tr, Timeout: 15 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }})
	}
	return l, nil
}

// start sends rate requests a second, each on its own goroutine so a slow answer does not
// lower the rate.
func (l *loader) start() {
	l.done.Add(1)
	go func() {
		defer l.done.Done()
		tick := time.NewTicker(time.Second / time.Duration(l.rate))
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-l.stop:
				return
			case <-tick.C:
			}
			p, c := mix[i%len(mix)], l.clients[i%len(l.clients)]
			l.done.Add(1)
			go func() { defer l.done.Done(); l.record(p, l.send(c, p)) }()
		}
	}()
}

func (l *loader) send(c *http.Client, p probe) string {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var body io.Reader
	if p.method == http.MethodPost {
		body = strings.NewReader(`{"message":"hello"}`)
	}
	req, err := http.NewRequestWithContext(ctx, p.method, l.base+p.path, body)
	if err != nil {
		return err.Error()
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return "transport error"
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for _, w := range p.want {
		if resp.StatusCode == w {
			return ""
		}
	}
	return fmt.Sprintf("%s %s: %d", p.method, p.path, resp.StatusCode)
}

func (l *loader) record(p probe, failure string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur.requests++
	if failure != "" {
		l.cur.errors++
		l.cur.byKind[failure]++
		if len(l.cur.samples) < 5 {
			l.cur.samples = append(l.cur.samples, time.Now().Format("15:04:05.000")+" "+failure)
		}
	}
}

// phase returns the counts since the previous call and starts new ones.
func (l *loader) phase() counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.cur
	l.cur = counts{byKind: map[string]int{}}
	return c
}

func (l *loader) close() counts {
	close(l.stop)
	l.done.Wait()
	return l.phase()
}
