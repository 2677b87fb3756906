package events

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/rediskit"
)

// A master whose replica stops acknowledging holds back only its own streams: with the sick
// stream's rows first in the outbox and batches no bigger than them, the other masters' streams
// are still published, the sick type sits out the batches after its failure, and it catches up
// once its replica acknowledges again. (Not parallel: it stops a replica of the shared cluster.)
func TestASickMasterHoldsBackOnlyItsOwnStreams(t *testing.T) {
	pool, rdb, prefix := setup(t)
	if !rediskit.IsCluster(rdb) {
		t.Skip("needs a Redis Cluster with replicas: TEST_REDIS_CLUSTER_ADDRS (make test-scale)")
	}
	ctx := context.Background()
	sickType, healthy, sickMaster := typesByMaster(t, rdb, prefix)
	sickIDs := enqueue(t, pool, sickType, 3)
	for _, typ := range healthy {
		enqueue(t, pool, typ, 2)
	}
	relay := NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix, BatchSize: 3, MinReplicas: 1, ReplicaWait: 200 * time.Millisecond})

	resume := stopReplicaOf(t, sickMaster)
	n, err := relay.PublishBatch(ctx)
	require.ErrorContains(t, err, sickType+" held back")
	require.Zero(t, n, "the first batch was the sick stream's rows alone")
	for published := 0; published < 2*len(healthy); published += n {
		n, err = relay.PublishBatch(ctx)
		require.NoError(t, err, "the held type is left out of the batches after its failure")
		require.Positive(t, n)
	}
	for _, typ := range healthy {
		require.EqualValues(t, 2, xlen(t, rdb, streamKey(prefix, typ)), typ)
	}
	require.Equal(t, 3, count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NULL AND type = $1", sickType))
	resume()

	require.Eventually(t, func() bool {
		_, err := relay.PublishBatch(ctx)
		return err == nil && count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NULL") == 0
	}, 20*time.Second, 250*time.Millisecond, "the sick stream catches up once its replica is back")
	entries, err := rdb.XRange(ctx, streamKey(prefix, sickType), "-", "+").Result()
	require.NoError(t, err)
	inStream := map[string]bool{}
	for _, e := range entries {
		var env Envelope
		require.NoError(t, json.Unmarshal([]byte(e.Values["envelope"].(string)), &env))
		inStream[env.ID] = true
	}
	for _, id := range sickIDs {
		require.True(t, inStream[id], "event %s reached its stream", id)
	}
}

// typesByMaster returns an event type whose stream lives on one master, up to three types whose
// streams live on other masters, and the first type's master.
func typesByMaster(t *testing.T, rdb redis.UniversalClient, prefix string) (string, []string, *redis.Client) {
	t.Helper()
	var (
		sick    string
		master  *redis.Client
		healthy []string
	)
	for c := 'a'; c <= 'z' && len(healthy) < 3; c++ {
		typ := "isolation." + string(c)
		node, err := rediskit.MasterForKey(context.Background(), rdb, streamKey(prefix, typ))
		require.NoError(t, err)
		switch {
		case master == nil:
			sick, master = typ, node
		case node.Options().Addr != master.Options().Addr:
			healthy = append(healthy, typ)
		}
	}
	require.NotEmpty(t, healthy, "the cluster has more than one master")
	return sick, healthy, master
}

// stopReplicaOf stops (SIGSTOP) the replica of master and returns the function that resumes it.
// A watchdog process resumes it after a few seconds whatever becomes of the test, and so does
// the test's cleanup.
func stopReplicaOf(t *testing.T, master *redis.Client) (resume func()) {
	t.Helper()
	ctx := context.Background()
	role, err := master.Do(ctx, "ROLE").Slice()
	require.NoError(t, err)
	replicas, _ := role[2].([]any)
	require.NotEmpty(t, replicas, "master %s has a replica", master.Options().Addr)
	first := replicas[0].([]any)
	replica := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("%s:%s", first[0], first[1])})
	defer replica.Close()
	info, err := replica.Info(ctx, "server").Result()
	require.NoError(t, err)
	pid := 0
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid, err = strconv.Atoi(v)
			require.NoError(t, err)
		}
	}
	require.Positive(t, pid, "the replica's INFO names its process")
	watchdog := exec.Command("sh", "-c", fmt.Sprintf("sleep 5; kill -CONT %d", pid))
	require.NoError(t, watchdog.Start())
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	resume = func() {
		_ = syscall.Kill(pid, syscall.SIGCONT)
		_ = watchdog.Process.Kill()
		_ = watchdog.Wait()
	}
	t.Cleanup(resume)
	return resume
}

func xlen(t *testing.T, rdb redis.UniversalClient, stream string) int64 {
	t.Helper()
	n, err := rdb.XLen(context.Background(), stream).Result()
	require.NoError(t, err)
	return n
}
