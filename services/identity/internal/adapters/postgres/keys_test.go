package postgres_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
	"github.com/bizassist/bizassist/services/identity/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/identity/migrations"
)

// storedKey is a signing_keys row as stored.
type storedKey struct {
	plain  []byte
	sealed *string
	public []byte
}

func stored(t *testing.T, pool *pgxpool.Pool, kid string) storedKey {
	t.Helper()
	var k storedKey
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT private_key, sealed_private_key, public_key FROM signing_keys WHERE kid = $1`, kid).Scan(&k.plain, &k.sealed, &k.public))
	return k
}

// requireSigns checks that the store's ring holds kid with a private key matching the published
// public key, by signing with it.
func requireSigns(t *testing.T, store *postgres.KeyStore, kid string, public []byte) {
	t.Helper()
	ring, err := store.Ring(context.Background())
	require.NoError(t, err)
	for _, k := range ring {
		if k.Kid == kid {
			msg := []byte("token")
			require.True(t, ed25519.Verify(public, msg, ed25519.Sign(k.Private, msg)), "key %s signs", kid)
			return
		}
	}
	t.Fatalf("key %s is not in the ring", kid)
}

func TestNewSigningKeysAreStoredSealed(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "identity", events.Migrations, migrations.Source)
	store := postgres.NewKeyStore(pool, sealboxtest.New(t))
	require.NoError(t, store.EnsureKey(context.Background(), now))
	kid, err := store.Rotate(context.Background(), now)
	require.NoError(t, err)

	k := stored(t, pool, kid)
	require.Nil(t, k.plain, "no plaintext column is written")
	require.NotNil(t, k.sealed)
	require.True(t, sealbox.IsSealed(*k.sealed))
	requireSigns(t, store, kid, k.public)

	other := postgres.NewKeyStore(pool, sealboxtest.New(t))
	_, err = other.Ring(context.Background())
	require.Error(t, err, "another encryption key cannot open the signing keys")
}

func TestPlaintextKeysAreSealedAndRotatedEncryptionKeysResealed(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "identity", events.Migrations, migrations.Source)
	ctx := context.Background()

	// A key written before sealing existed: the seed in plaintext.
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO signing_keys (kid, private_key, public_key, created_at) VALUES ('key_legacy', $1, $2, $3)`,
		priv.Seed(), []byte(pub), now)
	require.NoError(t, err)

	oldKey, err := sealbox.GenerateKey("old")
	require.NoError(t, err)
	newKey, err := sealbox.GenerateKey("new")
	require.NoError(t, err)
	oldBox, err := sealbox.New(sealbox.Config{Keys: oldKey, KeyID: "old"})
	require.NoError(t, err)
	before := postgres.NewKeyStore(pool, oldBox)
	requireSigns(t, before, "key_legacy", pub) // readable before it is sealed

	n, err := before.Reseal(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	k := stored(t, pool, "key_legacy")
	require.Nil(t, k.plain, "the plaintext is gone")
	require.True(t, strings.HasPrefix(*k.sealed, "sb1.old."), *k.sealed)
	requireSigns(t, before, "key_legacy", pub)

	// Rotation of the encryption key: both keys listed, the new one current.
	rotatedBox, err := sealbox.New(sealbox.Config{Keys: oldKey + "," + newKey, KeyID: "new"})
	require.NoError(t, err)
	after := postgres.NewKeyStore(pool, rotatedBox)
	requireSigns(t, after, "key_legacy", pub) // still opens under the old key id

	n, err = after.Reseal(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	k = stored(t, pool, "key_legacy")
	require.True(t, strings.HasPrefix(*k.sealed, "sb1.new."), *k.sealed)
	requireSigns(t, after, "key_legacy", pub)

	n, err = after.Reseal(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to reseal")

	newOnly, err := sealbox.New(sealbox.Config{Keys: newKey, KeyID: "new"})
	require.NoError(t, err)
	requireSigns(t, postgres.NewKeyStore(pool, newOnly), "key_legacy", pub) // the old key can go

	// A sealed key copied into another row does not open there (the kid is bound in).
	_, err = pool.Exec(ctx, `INSERT INTO signing_keys (kid, sealed_private_key, public_key, created_at) VALUES ('key_copy', $1, $2, $3)`,
		*k.sealed, []byte(pub), now)
	require.NoError(t, err)
	_, err = after.Ring(ctx)
	require.ErrorContains(t, err, "key_copy")
}
