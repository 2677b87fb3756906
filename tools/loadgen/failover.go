package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Failover is what a Redis master kill measured: the node killed and how long the slot of the
// events stream took to accept writes again (detection, election, clients finding the new master).
type Failover struct {
	Node   string
	Window time.Duration
}

// killMasterOf SIGKILLs the Redis Cluster master holding key (a local node of make up
// REDIS=cluster; its pid comes from INFO) and measures the time until a write to key's slot
// succeeds again through a fresh client.
func killMasterOf(ctx context.Context, seeds []string, key string) (Failover, error) {
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
	for ctx.Err() == nil {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: rest, MaxRetries: -1,
			DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
		err := c.Set(ctx, probe, killed.UnixMilli(), time.Minute).Err()
		_ = c.Close()
		if err == nil {
			return Failover{Node: node, Window: time.Since(killed)}, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return Failover{Node: node}, ctx.Err()
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
