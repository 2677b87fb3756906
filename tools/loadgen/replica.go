package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// ReplicaStop is a webhook scenario's partial Redis failure (issue 38, item 3): After into the
// load, the replica of the Redis Cluster master holding Stream's events is stopped (SIGSTOP) for
// For, then resumed. With EVENTS_RELAY_MIN_REPLICAS=1 an event leaves the outbox only once a
// replica holds it, so that stream waits; the chain's other stream, on another master, must not.
type ReplicaStop struct {
	Stream string        `yaml:"stream"` // an event type: the stream is <prefix>:<type>
	After  time.Duration `yaml:"after"`
	For    time.Duration `yaml:"for"`
	// Healthy is the chain's stream on another master, whose events must keep flowing meanwhile:
	// its consumption (bizassist_events_consumed_total) is read from Consumer's processes.
	Healthy  string `yaml:"healthy"`
	Consumer string `yaml:"consumer"`
}

// ReplicaDown is what stopping a replica showed: the node, and what the healthy stream's consumer
// and the sick stream's publisher did while it was stopped.
type ReplicaDown struct {
	Node, Stream, Healthy string
	// HealthyConsumed is how many of the healthy stream's events were consumed while the
	// replica was stopped; SickPublished how many of the sick stream's left the outbox meanwhile
	// (read from its publishers' bizassist_events_published_total).
	HealthyConsumed, SickPublished float64
	Stopped                        time.Duration
}

// Isolated reports whether the healthy stream flowed while the sick one's replica was away.
func (d *ReplicaDown) Isolated() bool { return d.HealthyConsumed > 0 }

// stopReplicaFor stops the replica of the master holding stream for d, measuring the counters
// around it, and resumes it whatever happens (a watchdog process resumes it too, should this
// process die meanwhile).
func stopReplicaFor(ctx context.Context, hc *http.Client, st Stack, seeds []string, rs ReplicaStop, prefix string) (ReplicaDown, error) {
	down := ReplicaDown{Stream: rs.Stream, Healthy: rs.Healthy}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: seeds})
	defer rdb.Close()
	master, err := rdb.MasterForKey(ctx, prefix+":"+rs.Stream)
	if err != nil {
		return down, fmt.Errorf("master of %s: %w", rs.Stream, err)
	}
	healthyMaster, err := rdb.MasterForKey(ctx, prefix+":"+rs.Healthy)
	if err != nil {
		return down, fmt.Errorf("master of %s: %w", rs.Healthy, err)
	}
	if master.Options().Addr == healthyMaster.Options().Addr {
		return down, fmt.Errorf("%s and %s live on one master (%s): the run cannot tell them apart", rs.Stream, rs.Healthy, master.Options().Addr)
	}
	pid, node, err := replicaOf(ctx, master)
	if err != nil {
		return down, err
	}
	down.Node = node
	healthyBefore, err := serviceCounter(ctx, hc, st, rs.Consumer, "bizassist_events_consumed_total", rs.Healthy)
	if err != nil {
		return down, err
	}
	sickBefore, err := serviceCounter(ctx, hc, st, rs.Consumer, "bizassist_events_published_total", rs.Stream)
	if err != nil {
		return down, err
	}
	// The watchdog outlives the run's context on purpose: it is what resumes the replica when
	// this process cannot.
	watchdog := exec.CommandContext(context.WithoutCancel(ctx), "sh", "-c", fmt.Sprintf("sleep %d; kill -CONT %d", int(rs.For/time.Second)+10, pid))
	if err := watchdog.Start(); err != nil {
		return down, err
	}
	defer func() { _ = watchdog.Process.Kill(); _ = watchdog.Wait() }()
	stopped := time.Now()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return down, fmt.Errorf("stop %s (pid %d): %w", node, pid, err)
	}
	resumed := false
	defer func() {
		if !resumed {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	select {
	case <-ctx.Done():
		return down, ctx.Err()
	case <-time.After(rs.For):
	}
	// The counters are read before the replica is back: what they show happened without it.
	healthyAfter, herr := serviceCounter(ctx, hc, st, rs.Consumer, "bizassist_events_consumed_total", rs.Healthy)
	sickAfter, serr := serviceCounter(ctx, hc, st, rs.Consumer, "bizassist_events_published_total", rs.Stream)
	resumed = syscall.Kill(pid, syscall.SIGCONT) == nil
	down.Stopped = time.Since(stopped)
	if err := errors.Join(herr, serr); err != nil {
		return down, err
	}
	down.HealthyConsumed, down.SickPublished = healthyAfter-healthyBefore, sickAfter-sickBefore
	return down, nil
}

// replicaOf returns the pid and address of master's first replica (ROLE, then its INFO).
func replicaOf(ctx context.Context, master *redis.Client) (int, string, error) {
	role, err := master.Do(ctx, "ROLE").Slice()
	if err != nil {
		return 0, "", fmt.Errorf("ROLE of %s: %w", master.Options().Addr, err)
	}
	var replicas []any
	if len(role) > 2 {
		replicas, _ = role[2].([]any)
	}
	if len(replicas) == 0 {
		return 0, "", fmt.Errorf("master %s has no replica", master.Options().Addr)
	}
	first, _ := replicas[0].([]any)
	if len(first) < 2 {
		return 0, "", fmt.Errorf("ROLE of %s: unexpected replica entry %v", master.Options().Addr, replicas[0])
	}
	node := fmt.Sprintf("%v:%v", first[0], first[1])
	replica := redis.NewClient(&redis.Options{Addr: node})
	defer replica.Close()
	info, err := replica.Info(ctx, "server").Result()
	if err != nil {
		return 0, "", fmt.Errorf("INFO of replica %s: %w", node, err)
	}
	pid, err := infoField(info, "process_id")
	return pid, node, err
}

// serviceCounter sums a counter's series whose type label is typ over every process of service.
func serviceCounter(ctx context.Context, hc *http.Client, st Stack, service, name, typ string) (float64, error) {
	pages, err := metricsPages(ctx, hc, st, service)
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for _, page := range pages {
		n, err := sumSamples(bufio.NewScanner(strings.NewReader(page)), name, `type="`+typ+`"`)
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

// sumSamples adds up the text-format samples of name whose labels contain label.
func sumSamples(sc *bufio.Scanner, name, label string) (float64, error) {
	sum := 0.0
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name+"{")
		if !ok || !strings.Contains(rest[:strings.IndexByte(rest, '}')+1], label) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest[strings.LastIndexByte(rest, ' ')+1:]), 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", line, err)
		}
		sum += v
	}
	return sum, sc.Err()
}
