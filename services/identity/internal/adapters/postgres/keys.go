package postgres

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/services/identity/internal/domain/signing"
)

// KeyStore keeps signing keys in the identity schema, so every replica signs with the same key
// and rotation is one command. Private keys are stored sealed by box with the key's kid as
// associated data, so a database dump alone cannot sign tokens and a sealed key cannot be moved
// to another row.
type KeyStore struct {
	pool *pgxpool.Pool
	box  *sealbox.Box
}

func NewKeyStore(pool *pgxpool.Pool, box *sealbox.Box) *KeyStore {
	return &KeyStore{pool: pool, box: box}
}

// Ring loads every key but the withdrawn ones.
func (s *KeyStore) Ring(ctx context.Context) (signing.Ring, error) {
	rows, err := s.pool.Query(ctx, `SELECT kid, private_key, sealed_private_key, created_at, retired_at FROM signing_keys
		WHERE withdrawn_at IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("load signing keys: %w", err)
	}
	defer rows.Close()
	var ring signing.Ring
	for rows.Next() {
		var (
			k      signing.Key
			plain  []byte
			sealed *string
		)
		if err := rows.Scan(&k.Kid, &plain, &sealed, &k.CreatedAt, &k.RetiredAt); err != nil {
			return nil, err
		}
		seed, err := s.seed(k.Kid, plain, sealed)
		if err != nil {
			return nil, err
		}
		k.Private = ed25519.NewKeyFromSeed(seed)
		ring = append(ring, k)
	}
	return ring, rows.Err()
}

// seed is a row's private key: opened from its sealed form, or the plaintext of a row written
// before keys were sealed (until Reseal seals it).
func (s *KeyStore) seed(kid string, plain []byte, sealed *string) ([]byte, error) {
	seed := plain
	if sealed != nil {
		var err error
		if seed, err = s.box.Open(*sealed, []byte(kid)); err != nil {
			return nil, fmt.Errorf("signing key %s: %w", kid, err)
		}
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("signing key %s: stored seed has %d bytes", kid, len(seed))
	}
	return seed, nil
}

// Rotate adds a new key, which becomes the signing key, and retires every older one. Retired keys
// stay published until the tokens they signed expire.
func (s *KeyStore) Rotate(ctx context.Context, now time.Time) (string, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `UPDATE signing_keys SET retired_at = $1 WHERE retired_at IS NULL`, now); err != nil {
		return "", err
	}
	kid, err := s.insert(ctx, tx, now)
	if err != nil {
		return "", err
	}
	return kid, tx.Commit(ctx)
}

// Withdraw stops signing with and publishing kid at once, whatever it signed; when it was the
// signing key a new one takes over. It fails with signing.ErrUnknownKey for a kid not in the ring.
func (s *KeyStore) Withdraw(ctx context.Context, kid string, now time.Time) error {
	tx, err := s.lockRing(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	tag, err := tx.Exec(ctx, `UPDATE signing_keys SET withdrawn_at = $2, retired_at = coalesce(retired_at, $2)
		WHERE kid = $1 AND withdrawn_at IS NULL`, kid, now)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return signing.ErrUnknownKey
	}
	if err := s.ensureSigning(ctx, tx, now); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// EnsureKey creates the first key when there is none; concurrent replicas agree on one key.
func (s *KeyStore) EnsureKey(ctx context.Context, now time.Time) error {
	tx, err := s.lockRing(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := s.ensureSigning(ctx, tx, now); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// lockRing begins a transaction holding the lock that orders changes to the ring across replicas.
func (s *KeyStore) lockRing(ctx context.Context) (pgx.Tx, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE signing_keys IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	return tx, nil
}

// ensureSigning adds a key when none is live, so that there is always one to sign with.
func (s *KeyStore) ensureSigning(ctx context.Context, tx pgx.Tx, now time.Time) error {
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM signing_keys WHERE retired_at IS NULL`).Scan(&n); err != nil || n > 0 {
		return err
	}
	_, err := s.insert(ctx, tx, now)
	return err
}

// insert stores a new sealed key and returns its kid.
func (s *KeyStore) insert(ctx context.Context, tx pgx.Tx, now time.Time) (string, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	kid := ids.New("key")
	sealed, err := s.box.Seal(priv.Seed(), []byte(kid))
	if err != nil {
		return "", fmt.Errorf("seal signing key: %w", err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO signing_keys (kid, sealed_private_key, public_key, created_at) VALUES ($1, $2, $3, $4)`,
		kid, sealed, []byte(pub), now)
	return kid, err
}

// Reseal seals the keys still stored in plaintext and reseals those sealed under another
// encryption key than the current one (after ENCRYPTION_KEY_ID changed), in one transaction;
// it reports how many it changed.
func (s *KeyStore) Reseal(ctx context.Context) (int, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	type row struct {
		kid    string
		plain  []byte
		sealed *string
	}
	rows, err := tx.Query(ctx, `SELECT kid, private_key, sealed_private_key FROM signing_keys FOR UPDATE`)
	if err != nil {
		return 0, fmt.Errorf("load signing keys: %w", err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.kid, &x.plain, &x.sealed)
		return x, err
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range all {
		if r.sealed != nil && !s.box.Stale(*r.sealed) {
			continue
		}
		seed, err := s.seed(r.kid, r.plain, r.sealed)
		if err != nil {
			return 0, err
		}
		sealed, err := s.box.Seal(seed, []byte(r.kid))
		if err != nil {
			return 0, fmt.Errorf("seal signing key %s: %w", r.kid, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE signing_keys SET sealed_private_key = $2, private_key = NULL WHERE kid = $1`, r.kid, sealed); err != nil {
			return 0, err
		}
		n++
	}
	return n, tx.Commit(ctx)
}
