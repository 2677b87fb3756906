package events

import (
	"context"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/bizassist/bizassist/libs/rediskit"
)

// message is one envelope bound for its stream.
type message struct {
	stream   string
	envelope []byte
}

// xadd appends msgs to their streams, with the commands before queues ahead of them and after
// behind them: one pipeline on a single node. With MinReplicas set it is one pipeline per master
// (a cluster spreads the streams over its masters by slot), each ending in WAIT on the same
// connection, run side by side between a pipeline of before's commands and one of after's. A
// master that fails, or whose replicas do not acknowledge in time, fails only its own streams:
// they are returned in sick (stream -> why), and the caller must not mark their rows published.
// after gets sick so that it touches only the healthy streams. err means nothing can be said of
// any stream (Redis as a whole failed).
func (r *Relay) xadd(ctx context.Context, msgs []message, before func(redis.Pipeliner),
	after func(redis.Pipeliner, map[string]error)) (sick map[string]error, err error) {
	sick = map[string]error{}
	if r.cfg.MinReplicas == 0 {
		pipe := r.rdb.Pipeline()
		before(pipe)
		for _, m := range msgs {
			r.add(ctx, pipe, m)
		}
		after(pipe, sick)
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, fmt.Errorf("xadd: %w", err)
		}
		return sick, nil
	}
	pipe := r.rdb.Pipeline()
	before(pipe)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("xadd: %w", err)
	}
	byMaster := map[*redis.Client][]message{}
	for _, m := range msgs {
		node, err := rediskit.MasterForKey(ctx, r.rdb, m.stream)
		if err != nil {
			sick[m.stream] = fmt.Errorf("master of %s: %w", m.stream, err)
			continue
		}
		byMaster[node] = append(byMaster[node], m)
	}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for node, ms := range byMaster {
		wg.Go(func() {
			if err := r.addOn(ctx, node, ms); err != nil {
				mu.Lock()
				defer mu.Unlock()
				for _, m := range ms {
					sick[m.stream] = err
				}
			}
		})
	}
	wg.Wait()
	pipe = r.rdb.Pipeline()
	after(pipe, sick)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("xadd: %w", err)
	}
	return sick, nil
}

// addOn appends ms on node, which is their streams' master, and waits for MinReplicas replicas.
func (r *Relay) addOn(ctx context.Context, node *redis.Client, ms []message) error {
	pipe := node.Pipeline()
	for _, m := range ms {
		r.add(ctx, pipe, m)
	}
	wait := pipe.Do(ctx, "WAIT", r.cfg.MinReplicas, r.cfg.ReplicaWait.Milliseconds())
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("xadd on %s: %w", node.Options().Addr, err)
	}
	if n, err := wait.Int64(); err != nil || n < int64(r.cfg.MinReplicas) {
		return fmt.Errorf("xadd on %s: %d of %d replicas acknowledged within %s", node.Options().Addr, n, r.cfg.MinReplicas, r.cfg.ReplicaWait)
	}
	return nil
}

func (r *Relay) add(ctx context.Context, pipe redis.Pipeliner, m message) {
	pipe.XAdd(ctx, &redis.XAddArgs{Stream: m.stream, MaxLen: r.cfg.MaxLen, Approx: true, Values: []any{"envelope", m.envelope}})
}
