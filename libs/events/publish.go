package events

import (
	"context"
	"fmt"

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
// connection, between a pipeline of before's commands and one of after's; an error then means
// some replica may lack the batch and the caller must not mark it published.
func (r *Relay) xadd(ctx context.Context, msgs []message, before, after func(redis.Pipeliner)) error {
	if r.cfg.MinReplicas == 0 {
		pipe := r.rdb.Pipeline()
		before(pipe)
		for _, m := range msgs {
			r.add(ctx, pipe, m)
		}
		after(pipe)
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("xadd: %w", err)
		}
		return nil
	}
	pipe := r.rdb.Pipeline()
	before(pipe)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("xadd: %w", err)
	}
	byMaster := map[*redis.Client][]message{}
	for _, m := range msgs {
		node, err := rediskit.MasterForKey(ctx, r.rdb, m.stream)
		if err != nil {
			return fmt.Errorf("xadd: master of %s: %w", m.stream, err)
		}
		byMaster[node] = append(byMaster[node], m)
	}
	for node, ms := range byMaster {
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
	}
	pipe = r.rdb.Pipeline()
	after(pipe)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("xadd: %w", err)
	}
	return nil
}

func (r *Relay) add(ctx context.Context, pipe redis.Pipeliner, m message) {
	pipe.XAdd(ctx, &redis.XAddArgs{Stream: m.stream, MaxLen: r.cfg.MaxLen, Approx: true, Values: []any{"envelope", m.envelope}})
}
