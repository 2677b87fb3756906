package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/migrations"
)

// newStore is a store on a fresh schema with one owner account, acc_1, and a count helper.
func newStore(t *testing.T) (*postgres.Store, func(sql string, args ...any) int) {
	t.Helper()
	pool := pgtest.New(t, "integrations", pgkit.Source{Name: "integrations", FS: migrations.FS}, events.Migrations)
	store := postgres.New(pool, nil)
	require.NoError(t, store.InTx(context.Background(), func(tx pgx.Tx) error {
		return store.SaveAccount(context.Background(), tx, app.AccountCreated{AccountID: "acc_1", Email: "a@example.com", Role: "owner"}, domain.HashSecret("s"))
	}))
	count := func(sql string, args ...any) int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&n))
		return n
	}
	return store, count
}

func record(key string, hash byte) app.InboundRecord {
	return app.InboundRecord{ID: ids.New("svc"), AccountID: "acc_1", Event: domain.InboundNewLead,
		Fields: map[string]string{"name": "x", "email": "x@example.com"}, IdempotencyKey: key,
		BodyHash: []byte{hash}, ReceivedAt: time.Now().UTC()}
}

func pub(rec app.InboundRecord) app.Publication {
	return app.Publication{Type: "inbound.new_lead", AccountID: rec.AccountID, Data: map[string]string{"inboundId": rec.ID}}
}

// Copies of one delivery arriving at once (a sender retrying on a timeout) store one record.
func TestConcurrentCopiesOfOneInboundEventStoreOneRecord(t *testing.T) {
	t.Parallel()
	for name, key := range map[string]string{"by idempotency key": "k-1", "by body": ""} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store, count := newStore(t)
			var wg sync.WaitGroup
			results := make(chan app.InboundRecord, 8)
			created := make(chan bool, 8)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rec := record(key, 7)
					stored, ok, err := store.Accept(context.Background(), rec, time.Now().Add(-time.Hour), pub(rec))
					require.NoError(t, err)
					results <- stored
					created <- ok
				}()
			}
			wg.Wait()
			close(results)
			close(created)
			first := (<-results).ID
			for r := range results {
				require.Equal(t, first, r.ID)
			}
			n := 0
			for c := range created {
				if c {
					n++
				}
			}
			require.Equal(t, 1, n)
			require.Equal(t, 1, count(`SELECT count(*) FROM inbox`))
			require.Equal(t, 1, count(`SELECT count(*) FROM outbox WHERE type = 'inbound.new_lead'`))
		})
	}
}

func TestTheSameBodyAfterTheWindowIsANewEvent(t *testing.T) {
	t.Parallel()
	store, count := newStore(t)
	old := record("", 9)
	old.ReceivedAt = time.Now().Add(-25 * time.Hour)
	_, created, err := store.Accept(context.Background(), old, time.Now().Add(-24*time.Hour), pub(old))
	require.NoError(t, err)
	require.True(t, created)
	fresh := record("", 9)
	_, created, err = store.Accept(context.Background(), fresh, time.Now().Add(-24*time.Hour), pub(fresh))
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 2, count(`SELECT count(*) FROM inbox`))
}

func TestSecretsAreOnlyForKnownOwners(t *testing.T) {
	t.Parallel()
	store, _ := newStore(t)
	ctx := context.Background()
	require.NoError(t, store.InTx(ctx, func(tx pgx.Tx) error {
		return store.SaveAccount(ctx, tx, app.AccountCreated{AccountID: "acc_c", Email: "c@example.com", Role: "client", OwnerID: "acc_1"}, nil)
	}))
	require.ErrorIs(t, store.SetSecret(ctx, "acc_c", domain.HashSecret("x")), app.ErrNotFound)
	require.ErrorIs(t, store.SetSecret(ctx, "acc_unknown", domain.HashSecret("x")), app.ErrNotFound)
	require.NoError(t, store.SetSecret(ctx, "acc_1", domain.HashSecret("new")))
	_, _, err := store.SecretOwner(ctx, domain.HashSecret("s"))
	require.ErrorIs(t, err, app.ErrNotFound, "the rotated-out secret no longer matches")
	owner, stored, err := store.SecretOwner(ctx, domain.HashSecret("new"))
	require.NoError(t, err)
	require.Equal(t, "acc_1", owner)
	require.True(t, domain.SecretMatches(stored, "new"))
}
