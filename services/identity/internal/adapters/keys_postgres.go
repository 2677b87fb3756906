package adapters

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/identity/internal/domain/signing"
)

// KeyStore keeps signing keys in the identity schema, so every replica signs with the same key
// and rotation is one command. The private keys never leave identity's schema.
type KeyStore struct {
	pool *pgxpool.Pool
}

func NewKeyStore(pool *pgxpool.Pool) *KeyStore { return &KeyStore{pool: pool} }

// Ring loads every key.
func (s *KeyStore) Ring(ctx context.Context) (signing.Ring, error) {
	rows, err := s.pool.Query(ctx, `SELECT kid, private_key, created_at, retired_at FROM signing_keys`)
	if err != nil {
		return nil, fmt.Errorf("load signing keys: %w", err)
	}
	defer rows.Close()
	var ring signing.Ring
	for rows.Next() {
		var (
			k    signing.Key
			seed []byte
		)
		if err := rows.Scan(&k.Kid, &seed, &k.CreatedAt, &k.RetiredAt); err != nil {
			return nil, err
		}
		if len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("signing key %s: stored seed has %d bytes", k.Kid, len(seed))
		}
		k.Private = ed25519.NewKeyFromSeed(seed)
		ring = append(ring, k)
	}
	return ring, rows.Err()
}

// Rotate adds a new key, which becomes the signing key, and retires every older one. Retired keys
// stay published until the tokens they signed expire.
func (s *KeyStore) Rotate(ctx context.Context, now time.Time) (string, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	kid := ids.New("key")
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `UPDATE signing_keys SET retired_at = $1 WHERE retired_at IS NULL`, now); err != nil {
		return "", err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO signing_keys (kid, private_key, public_key, created_at) VALUES ($1, $2, $3, $4)`,
		kid, priv.Seed(), []byte(pub), now); err != nil {
		return "", err
	}
	return kid, tx.Commit(ctx)
}

// EnsureKey creates the first key when there is none; concurrent replicas agree on one key.
func (s *KeyStore) EnsureKey(ctx context.Context, now time.Time) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `LOCK TABLE signing_keys IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM signing_keys WHERE retired_at IS NULL`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO signing_keys (kid, private_key, public_key, created_at) VALUES ($1, $2, $3, $4)`,
		ids.New("key"), priv.Seed(), []byte(pub), now); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
