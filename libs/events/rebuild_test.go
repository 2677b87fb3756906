package events

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestStreamsLostInRedisAreRebuiltFromTheOutbox: Redis restarted without persistence while a
// consumer group was behind (it had handled 2 of 5 events) loses the streams and the groups; the
// relay, even one started after the loss, republishes from the outbox and the group handles each
// of the 5 events once. A single stream deleted later is rebuilt too, at the consumer's request.
func TestStreamsLostInRedisAreRebuiltFromTheOutbox(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ctx := context.Background()
	const typ = "rebuild.tested"
	stream := streamKey(prefix, typ)
	consumer := NewConsumer(pool, rdb, ConsumerConfig{
		StreamPrefix: prefix, Group: "rebuilder", Consumer: "rebuilder-1", BatchSize: 2,
		Block: 20 * time.Millisecond, ClaimIdle: time.Hour,
	}, map[string]Handler{typ: record})
	_, err := consumer.Poll(ctx)
	require.NoError(t, err)

	ids := enqueue(t, pool, typ, 5)
	relayAll(t, pool, rdb, prefix)
	n, err := consumer.Poll(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n, "the group is behind when Redis goes")

	wipe := func(keys ...string) {
		t.Helper()
		if len(keys) == 0 { // everything of this test, as a restart without persistence does
			keys = keysOf(t, rdb, prefix+":*")
		}
		for _, key := range keys { // one by one: a cluster holds them in different slots
			require.NoError(t, rdb.Del(ctx, key).Err())
		}
	}
	handled := func(want []string) {
		t.Helper()
		sort.Strings(want)
		for deadline := time.Now().Add(waitFor); len(seenIDs(t, pool)) < len(want) && time.Now().Before(deadline); {
			_, _ = consumer.Poll(ctx) // the first poll after a loss meets NOGROUP and recreates the group
		}
		require.Equal(t, want, seenIDs(t, pool), "every event handled exactly once")
	}

	wipe()
	// A relay started after the loss rebuilds, as one running through it does.
	run(t, NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix, PollInterval: 20 * time.Millisecond}).Run)
	handled(ids)

	// Published, not yet read, and the stream alone is deleted: its marker stays, the consumer
	// finds the stream gone and asks for the rebuild.
	more := enqueue(t, pool, typ, 3)
	require.Eventually(t, func() bool {
		return count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NULL") == 0
	}, waitFor, 10*time.Millisecond)
	wipe(stream)
	handled(append(ids, more...))
}

// TestARelayStartedAfterALossRebuildsBeforeItPublishes: a relay that starts after Redis lost its
// data and publishes a new event first still knows the type's stream had more (from the outbox),
// so that write does not hide the loss.
func TestARelayStartedAfterALossRebuildsBeforeItPublishes(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ctx := context.Background()
	const typ = "rebuild.first"
	enqueue(t, pool, typ, 2)
	relayAll(t, pool, rdb, prefix)
	loseStream(t, rdb, prefix, typ)

	enqueue(t, pool, typ, 1)
	relay := NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix})
	_, err := relay.PublishBatch(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NULL"), "all three are to be published again")
	_, err = relay.PublishBatch(ctx)
	require.NoError(t, err)
	n, err := rdb.XLen(ctx, streamKey(prefix, typ)).Result()
	require.NoError(t, err)
	require.Equal(t, int64(4), n, "the new event, then all three again")
}

// TestAStreamWrittenBeforeMarkersIsAdoptedNotRebuilt: a stream that holds entries but has no
// marker (written by a relay before markers existed) is whole; it gets its marker, no rebuild.
func TestAStreamWrittenBeforeMarkersIsAdoptedNotRebuilt(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ctx := context.Background()
	const typ = "rebuild.adopted"
	enqueue(t, pool, typ, 2)
	relayAll(t, pool, rdb, prefix)
	require.NoError(t, rdb.Del(ctx, markerKey(prefix, typ)).Err())

	require.NoError(t, NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix}).CheckStreams(ctx))
	require.Zero(t, count(t, pool, "SELECT count(*) FROM outbox WHERE published_at IS NULL"), "nothing republished")
	marked, err := rdb.Exists(ctx, markerKey(prefix, typ)).Result()
	require.NoError(t, err)
	require.Equal(t, int64(1), marked)
}

// A rebuild wakes the relays by notification, as a commit does: a relay waiting out its idle poll
// republishes at once.
func TestARebuildWakesTheRelays(t *testing.T) {
	t.Parallel()
	pool, rdb, prefix := setup(t)
	ctx := context.Background()
	const typ = "rebuild.wake"
	enqueue(t, pool, typ, 2)
	relayAll(t, pool, rdb, prefix)
	run(t, NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix, PollInterval: time.Hour, IdlePoll: time.Hour}).Run)
	require.Eventually(t, func() bool {
		return count(t, pool, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'LISTEN %'`) == 1
	}, waitFor, 5*time.Millisecond)
	loseStream(t, rdb, prefix, typ)

	require.NoError(t, NewRelay(pool, rdb, RelayConfig{StreamPrefix: prefix}).CheckStreams(ctx))
	require.Eventually(t, func() bool { return rdb.XLen(ctx, streamKey(prefix, typ)).Val() == 2 }, waitFor, 5*time.Millisecond,
		"the relay republished the rebuilt stream")
}

// loseStream deletes typ's stream and its marker, as a Redis that lost its data has neither.
func loseStream(t *testing.T, rdb redis.UniversalClient, prefix, typ string) {
	t.Helper()
	for _, key := range []string{streamKey(prefix, typ), markerKey(prefix, typ)} { // one by one: a cluster may hold them in different slots
		require.NoError(t, rdb.Del(context.Background(), key).Err())
	}
}

// keysOf lists the keys matching pattern on every master of a cluster, or on the single node.
func keysOf(t *testing.T, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	ctx := context.Background()
	cluster, ok := rdb.(*redis.ClusterClient)
	if !ok {
		keys, err := rdb.Keys(ctx, pattern).Result()
		require.NoError(t, err)
		return keys
	}
	var (
		mu   sync.Mutex
		keys []string
	)
	require.NoError(t, cluster.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		ks, err := node.Keys(ctx, pattern).Result()
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, ks...)
		return err
	}))
	return keys
}
