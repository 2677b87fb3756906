package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/migrations"
)

func storedSecret(t *testing.T, pool *pgxpool.Pool, id string) string {
	t.Helper()
	var s string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT secret FROM subscriptions WHERE id = $1`, id).Scan(&s))
	return s
}

func newSubscription(t *testing.T, accountID, url string) domain.Subscription {
	t.Helper()
	sub, err := domain.NewSubscription(accountID, domain.OutboundNewLead, url, domain.TargetPolicy{}, time.Now())
	require.NoError(t, err)
	return sub
}

// A signing secret is stored sealed, bound to its row, and comes back usable.
func TestSigningSecretsAreSealedAtRest(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "integrations", migrations.Source, events.Migrations)
	box := sealboxtest.New(t)
	store := postgres.NewSubscriptions(pool, box, pgkit.PrimaryReads(pool))
	ctx := context.Background()
	a, b := newSubscription(t, "acc_1", "https://a.example/x"), newSubscription(t, "acc_1", "https://b.example/x")
	for _, sub := range []domain.Subscription{a, b} {
		_, _, err := store.CreateSubscription(ctx, sub)
		require.NoError(t, err)
	}

	stored := storedSecret(t, pool, a.ID())
	require.True(t, sealbox.IsSealed(stored), "stored as %q", stored)
	require.NotContains(t, stored, a.Secret()[len("whsec_"):])
	subs, err := store.ListSubscriptions(ctx, "acc_1")
	require.NoError(t, err)
	require.Len(t, subs, 2)
	for _, s := range subs {
		require.Contains(t, []string{a.Secret(), b.Secret()}, s.Secret())
	}

	// A sealed secret copied into another row does not open there.
	_, err = pool.Exec(ctx, `UPDATE subscriptions SET secret = $1 WHERE id = $2`, stored, b.ID())
	require.NoError(t, err)
	_, err = store.ListSubscriptions(ctx, "acc_1")
	require.Error(t, err)
}

// Secrets stored in plaintext before sealing are sealed by SealSecrets, and after a key rotation
// it reseals what the old key sealed; the values stay the same.
func TestSealSecretsSealsPlaintextAndResealsAfterRotation(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "integrations", migrations.Source, events.Migrations)
	ctx := context.Background()
	legacy := newSubscription(t, "acc_1", "https://legacy.example/x")
	_, err := pool.Exec(ctx, `INSERT INTO subscriptions (id, account_id, event, hook_url, secret, status) VALUES ($1, 'acc_1', 'new_lead', $2, $3, 'active')`,
		legacy.ID(), legacy.HookURL(), legacy.Secret())
	require.NoError(t, err)

	oldKey, err := sealbox.GenerateKey("k1")
	require.NoError(t, err)
	before, err := sealbox.New(sealbox.Config{Keys: oldKey, KeyID: "k1"})
	require.NoError(t, err)
	store := postgres.NewSubscriptions(pool, before, pgkit.PrimaryReads(pool))
	n, err := store.SealSecrets(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.True(t, sealbox.IsSealed(storedSecret(t, pool, legacy.ID())))
	fresh := newSubscription(t, "acc_1", "https://fresh.example/x")
	_, _, err = store.CreateSubscription(ctx, fresh)
	require.NoError(t, err)
	n, err = store.SealSecrets(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to seal")

	newKey, err := sealbox.GenerateKey("k2")
	require.NoError(t, err)
	after, err := sealbox.New(sealbox.Config{Keys: oldKey + "," + newKey, KeyID: "k2"})
	require.NoError(t, err)
	rotated := postgres.NewSubscriptions(pool, after, pgkit.PrimaryReads(pool))
	n, err = rotated.SealSecrets(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	for _, sub := range []domain.Subscription{legacy, fresh} {
		require.False(t, after.Stale(storedSecret(t, pool, sub.ID())), "resealed under the current key")
	}
	onlyNew, err := sealbox.New(sealbox.Config{Keys: newKey, KeyID: "k2"})
	require.NoError(t, err)
	subs, err := postgres.NewSubscriptions(pool, onlyNew, pgkit.PrimaryReads(pool)).ListSubscriptions(ctx, "acc_1")
	require.NoError(t, err, "the old key can go once everything is resealed")
	got := map[string]string{}
	for _, s := range subs {
		got[s.ID()] = s.Secret()
	}
	require.Equal(t, map[string]string{legacy.ID(): legacy.Secret(), fresh.ID(): fresh.Secret()}, got)
}
