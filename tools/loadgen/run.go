package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bizassist/bizassist/tools/internal/openloop"
)

// Result is what one scenario measured.
type Result struct {
	Name     string
	Requests int
	Errors   int
	Elapsed  time.Duration
	// Latencies of the successful requests, sorted.
	Latencies []time.Duration
	// FirstError describes the first failed request, to show why errors happened.
	FirstError string
	// CPU is what the stack's processes spent during the run.
	CPU CPUSample
}

// RPS is completed requests (failed ones included) per second.
func (r Result) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// Percentile returns the p-th percentile (0 < p <= 100) of the successful requests' latencies
// by the nearest-rank method, or 0 when none succeeded.
func (r Result) Percentile(p float64) time.Duration { return openloop.Percentile(r.Latencies, p) }

// Logins keeps one token per account for the whole run: identity allows only a few logins per
// email a minute, and many scenarios use the same demo account.
type Logins struct {
	mu     sync.Mutex
	tokens map[Login]string
}

// Token returns the cached token for l, logging in on first use.
func (ls *Logins) Token(ctx context.Context, hc *http.Client, base string, l Login) (string, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if tok, ok := ls.tokens[l]; ok {
		return tok, nil
	}
	tok, err := login(ctx, hc, base, l)
	if err != nil {
		return "", err
	}
	if ls.tokens == nil {
		ls.tokens = map[Login]string{}
	}
	ls.tokens[l] = tok
	return tok, nil
}

// Run sends sc's request from sc.Concurrency workers until sc.Duration has passed or maxRequests
// have been sent, whichever comes first.
func Run(ctx context.Context, hc *http.Client, base string, sc Scenario, maxRequests int, logins *Logins, meter *CPUMeter) (Result, error) {
	headers, err := requestHeaders(ctx, hc, base, sc, logins)
	if err != nil {
		return Result{}, err
	}

	before, err := meter.Sample()
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, sc.Duration)
	defer cancel()
	var (
		sent     atomic.Int64
		mu       sync.Mutex
		res      = Result{Name: sc.Name}
		wg       sync.WaitGroup
		start    = time.Now()
		deadline = start.Add(sc.Duration)
	)
	for range sc.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			var n, errs int
			var firstErr string
			for time.Now().Before(deadline) && sent.Add(1) <= int64(maxRequests) {
				d, err := once(ctx, hc, base, sc, headers)
				if ctx.Err() != nil {
					break // cut off by the deadline: neither a success nor an error
				}
				n++
				if err != nil {
					errs++
					if firstErr == "" {
						firstErr = err.Error()
					}
					continue
				}
				lat = append(lat, d)
			}
			mu.Lock()
			defer mu.Unlock()
			res.Requests += n
			res.Errors += errs
			res.Latencies = append(res.Latencies, lat...)
			if res.FirstError == "" {
				res.FirstError = firstErr
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	after, err := meter.Sample()
	if err != nil {
		return Result{}, err
	}
	res.CPU = after.Sub(before)
	slices.Sort(res.Latencies)
	return res, nil
}

func once(ctx context.Context, hc *http.Client, base string, sc Scenario, headers http.Header) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, sc.Method, base+sc.Path, bytes.NewReader(sc.body))
	if err != nil {
		return 0, err
	}
	req.Header = headers.Clone()
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != sc.Expect {
		return 0, fmt.Errorf("status %d, want %d", resp.StatusCode, sc.Expect)
	}
	return d, nil
}

func login(ctx context.Context, hc *http.Client, base string, l Login) (string, error) {
	body, err := json.Marshal(map[string]string{"email": l.Email, "password": l.Password})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/auth", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("login %s: %w", l.Email, err)
	}
	defer resp.Body.Close()
	var out struct {
		Token string `json:"token"`
		Error string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.Token == "" {
		return "", fmt.Errorf("login %s: status %d %s", l.Email, resp.StatusCode, out.Error)
	}
	return out.Token, nil
}

// requestHeaders are the headers of sc's request: its own, a JSON Content-Type for a body, and
// the bearer token of its login.
func requestHeaders(ctx context.Context, hc *http.Client, base string, sc Scenario, logins *Logins) (http.Header, error) {
	headers := http.Header{}
	for k, v := range sc.Headers {
		headers.Set(k, v)
	}
	if len(sc.body) > 0 && headers.Get("Content-Type") == "" {
		headers.Set("Content-Type", "application/json")
	}
	if sc.Login != nil {
		tok, err := logins.Token(ctx, hc, base, *sc.Login)
		if err != nil {
			return nil, err
		}
		headers.Set("Authorization", "Bearer "+tok)
	}
	return headers, nil
}
