package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// A looked-up secret is remembered briefly: a rotation through the same store is seen at once,
// one through another replica once the memory runs out.
func TestRememberedSecretsFollowRotation(t *testing.T) {
	t.Parallel()
	pool, _ := newDB(t)
	store, replica := postgres.NewAccounts(pool), postgres.NewAccounts(pool)
	ctx := context.Background()
	owner, _, err := store.SecretOwner(ctx, domain.HashSecret("s"))
	require.NoError(t, err)
	require.Equal(t, "acc_1", owner)

	require.NoError(t, store.SetSecret(ctx, "acc_1", domain.HashSecret("second")))
	_, _, err = store.SecretOwner(ctx, domain.HashSecret("s"))
	require.ErrorIs(t, err, app.ErrNotFound, "rotated here: forgotten at once")

	_, _, err = store.SecretOwner(ctx, domain.HashSecret("second"))
	require.NoError(t, err)
	require.NoError(t, replica.SetSecret(ctx, "acc_1", domain.HashSecret("third")))
	require.Eventually(t, func() bool {
		_, _, err := store.SecretOwner(ctx, domain.HashSecret("second"))
		return errors.Is(err, app.ErrNotFound)
	}, 10*time.Second, 50*time.Millisecond, "rotated by another replica: forgotten when remembered too long")
}

func TestSecretsAreOnlyForKnownOwners(t *testing.T) {
	t.Parallel()
	pool, _ := newDB(t)
	store := postgres.NewAccounts(pool)
	ctx := context.Background()
	require.NoError(t, store.SaveAccount(ctx, app.NewAccount{AccountID: "acc_c", Email: "c@example.com", Role: "client", OwnerID: "acc_1"}, nil))
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
