package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/identity/internal/domain/apikey"
)

// APIKeyRepository stores API keys (hashes only) in PostgreSQL; it joins the transaction in ctx.
type APIKeyRepository struct {
	pool *pgxpool.Pool
}

func NewAPIKeyRepository(pool *pgxpool.Pool) *APIKeyRepository {
	return &APIKeyRepository{pool: pool}
}

const apiKeyColumns = `id, account_id, name, prefix, key_hash, created_at, last_used_at` //nolint:gosec // column names, not a credential

func scanAPIKey(row pgx.Row) (*apikey.Key, error) {
	var (
		s    apikey.Snapshot
		used *time.Time
	)
	err := row.Scan(&s.ID, &s.AccountID, &s.Name, &s.Prefix, &s.Hash, &s.CreatedAt, &used)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, apikey.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	s.CreatedAt, s.LastUsedAt = s.CreatedAt.UTC(), utcOrZero(used)
	return apikey.FromSnapshot(s), nil
}

// Create counts the account's keys under a lock on the account row, so concurrent creations
// cannot pass the limit.
func (r *APIKeyRepository) Create(ctx context.Context, k *apikey.Key) error {
	s := k.Snapshot()
	return pgkit.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, s.AccountID); err != nil {
			return fmt.Errorf("lock account: %w", err)
		}
		var n int
		err := tx.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE account_id = $1 AND deleted_at IS NULL`, s.AccountID).Scan(&n)
		if err != nil {
			return fmt.Errorf("count api keys: %w", err)
		}
		if n >= apikey.MaxPerAccount {
			return apikey.ErrTooMany
		}
		_, err = tx.Exec(ctx, `INSERT INTO api_keys (id, account_id, name, prefix, key_hash, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, s.ID, s.AccountID, s.Name, s.Prefix, s.Hash, s.CreatedAt)
		if err != nil {
			return fmt.Errorf("insert api key: %w", err)
		}
		return nil
	})
}

func (r *APIKeyRepository) List(ctx context.Context, accountID string) ([]*apikey.Key, error) {
	rows, err := pgkit.Q(ctx, r.pool).Query(ctx, `SELECT `+apiKeyColumns+` FROM api_keys
		WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*apikey.Key{}
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (r *APIKeyRepository) Delete(ctx context.Context, accountID, id string, now time.Time) error {
	tag, err := pgkit.Q(ctx, r.pool).Exec(ctx, `UPDATE api_keys SET deleted_at = $3
		WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID, now)
	if err != nil {
		return fmt.Errorf("delete api key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return apikey.ErrNotFound
	}
	return nil
}

func (r *APIKeyRepository) DeleteAll(ctx context.Context, accountID string, now time.Time) ([]string, error) {
	rows, err := pgkit.Q(ctx, r.pool).Query(ctx, `UPDATE api_keys SET deleted_at = $2
		WHERE account_id = $1 AND deleted_at IS NULL RETURNING id`, accountID, now)
	if err != nil {
		return nil, fmt.Errorf("delete api keys: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("delete api keys: %w", err)
	}
	return ids, nil
}

func (r *APIKeyRepository) ByHash(ctx context.Context, hash string) (*apikey.Key, error) {
	return scanAPIKey(pgkit.Q(ctx, r.pool).QueryRow(ctx, `SELECT `+apiKeyColumns+` FROM api_keys
		WHERE key_hash = $1 AND deleted_at IS NULL`, hash))
}

func (r *APIKeyRepository) Touch(ctx context.Context, id string, now time.Time) error {
	_, err := pgkit.Q(ctx, r.pool).Exec(ctx, `UPDATE api_keys SET last_used_at = $2
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`, id, now)
	return err
}
