package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bizassist/bizassist/tools/internal/devenv"
)

// Failover is what a Redis master kill measured: the node killed, how long the slot of the events
// stream took to accept writes again (detection, election, clients finding the new master), and
// how long until the restarted node was back as a replica of the new master, as an orchestrator
// restarting the process would have it (until then the new master has no replica, and a relay
// that waits for one holds its events in the outbox).
type Failover struct {
	Node     string
	Window   time.Duration
	Rejoined time.Duration
	// RateLimited is how many of rateProbes statistics requests from a limited source were
	// refused after the failover, Budget how many the policy let through at most while they were
	// sent, and FallbackActive whether leads was still limiting in process
	// (bizassist_ratelimit_fallback_active) instead of in Redis.
	RateLimited    int
	Budget         int
	FallbackActive bool
}

// LimitHeld reports whether no more probes passed than the statistics policy allows: a limiter
// that granted a second budget on failover (a fresh bucket per replica) lets more through.
func (f *Failover) LimitHeld() bool {
	return rateProbes-f.RateLimited <= f.Budget && !f.FallbackActive
}

// Stack is the local stack a scenario runs against: .devstack/env and the .devstack directory.
type Stack struct {
	Env map[string]string
	Dir string
}

// rateProbes exceeds the statistics policy (30 per minute, burst 30), so some must be refused.
const (
	rateProbes  = 40
	statsBurst  = 30
	statsPerMin = 30
)

// checkRateLimits waits (up to fallbackBound) until no leads process limits in process any more,
// then sends rateProbes statistics requests from 127.0.0.1 (not the bench source, so limited):
// after a failover the limits hold, in Redis again. With two replicas each one's gauge counts:
// one still on its own fallback budget lets the probes it gets through.
// The budget is the burst and what the rate adds back while the probes are sent.
func checkRateLimits(ctx context.Context, st Stack) (refused, budget int, fallback bool, err error) {
	tr, err := devenv.Transport(st.Env["CA_CERT"], "")
	if err != nil {
		return 0, 0, false, err
	}
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	for deadline := time.Now().Add(fallbackBound); ; time.Sleep(500 * time.Millisecond) {
		if fallback, err = leadsFallback(ctx, hc, st); err != nil || !fallback || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return 0, 0, fallback, err
	}
	start := time.Now()
	for range rateProbes {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, st.Env["BASE_URL"]+"/api/scout-stats", nil)
		if err != nil {
			return refused, 0, fallback, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return refused, 0, fallback, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			refused++
		}
	}
	budget = statsBurst + int(time.Since(start).Minutes()*statsPerMin) + 1
	return refused, budget, fallback, nil
}

// fallbackBound is how long a leads process may stay on its in-process fallback after the
// failover before the check counts it against the run.
const fallbackBound = 30 * time.Second

// leadsFallback reports whether any leads process of the stack limits in process now.
func leadsFallback(ctx context.Context, hc *http.Client, st Stack) (bool, error) {
	pages, err := metricsPages(ctx, hc, st, "leads")
	if err != nil {
		return false, err
	}
	for _, page := range pages {
		if strings.Contains(page, "\nbizassist_ratelimit_fallback_active 1") {
			return true, nil
		}
	}
	return false, nil
}

// metricsPages reads the /metrics page of every process of service in the stack (their
// addresses from .devstack/run/<service>*.env).
func metricsPages(ctx context.Context, hc *http.Client, st Stack, service string) ([]string, error) {
	envs, err := filepath.Glob(filepath.Join(st.Dir, "run", service+"*.env"))
	if err != nil {
		return nil, err
	}
	if len(envs) == 0 {
		return nil, fmt.Errorf("no %s settings in %s", service, filepath.Join(st.Dir, "run"))
	}
	var pages []string
	for _, path := range envs {
		env, err := devenv.Load(path)
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+env["HTTP_ADDR"]+"/metrics", nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		pages = append(pages, string(body))
	}
	return pages, nil
}

// killMasterOf SIGKILLs the Redis Cluster master holding key (a local node of make up
// REDIS=cluster; its pid comes from INFO), measures the time until a write to key's slot succeeds
// again through a fresh client, then runs restart with the node's port and waits for the node to
// be a replica in sync.
func killMasterOf(ctx context.Context, seeds []string, key string, restart []string) (Failover, error) {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: seeds})
	defer rdb.Close()
	master, err := rdb.MasterForKey(ctx, key)
	if err != nil {
		return Failover{}, fmt.Errorf("master of %s: %w", key, err)
	}
	info, err := master.Info(ctx, "server").Result()
	if err != nil {
		return Failover{}, err
	}
	pid, err := infoField(info, "process_id")
	if err != nil {
		return Failover{}, err
	}
	node := master.Options().Addr
	killed := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return Failover{}, fmt.Errorf("kill %s (pid %d): %w", node, pid, err)
	}
	var rest []string
	for _, s := range seeds {
		if s != node {
			rest = append(rest, s)
		}
	}
	// The probe's hash tag is key itself, so it lives in key's slot.
	probe := "{" + key + "}:failover-probe"
	f := Failover{Node: node}
	for ctx.Err() == nil {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: rest, MaxRetries: -1,
			DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
		err := c.Set(ctx, probe, killed.UnixMilli(), time.Minute).Err()
		_ = c.Close()
		if err == nil {
			f.Window = time.Since(killed)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The restarted node rejoins as a replica of its successor.
	_, port, _ := strings.Cut(node, ":")
	cmd := exec.CommandContext(ctx, restart[0], append(restart[1:], port)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return f, fmt.Errorf("restart %s: %w: %s", node, err, out)
	}
	restarted := redis.NewClient(&redis.Options{Addr: node})
	defer restarted.Close()
	for ctx.Err() == nil {
		info, err := restarted.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, "role:slave") && strings.Contains(info, "master_link_status:up") {
			f.Rejoined = time.Since(killed)
			return f, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return f, ctx.Err()
}

// infoField reads an integer field of an INFO reply.
func infoField(info, name string) (int, error) {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, errors.New("INFO has no " + name)
}
