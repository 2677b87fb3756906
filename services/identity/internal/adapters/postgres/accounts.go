// Package postgres stores identity's accounts, API keys and signing keys in its schema.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// AccountRepository stores accounts in PostgreSQL. Called with a transaction in the context (an
// event consumer's, or a use case's unit of work), it works inside that transaction.
type AccountRepository struct {
	pool *pgxpool.Pool
}

func NewAccountRepository(pool *pgxpool.Pool) *AccountRepository {
	return &AccountRepository{pool: pool}
}

const accountColumns = `id, email, coalesce(password_hash, ''), plan, role, coalesce(owner_id, ''),
	business_name, owner_name, phone, status, created_at, updated_at, tokens_not_before, last_login_at,
	coalesce(invite_hash, ''), invite_expires_at, coalesce(health_score, 0), coalesce(health_tier, ''), health_at`

func scanAccount(row pgx.Row) (*account.Account, error) {
	var (
		s                            account.Snapshot
		nbf, login, invite, healthAt *time.Time
	)
	err := row.Scan(&s.ID, &s.Email, &s.PasswordHash, &s.Plan, &s.Role, &s.OwnerID,
		&s.BusinessName, &s.OwnerName, &s.Phone, &s.Status, &s.CreatedAt, &s.UpdatedAt, &nbf, &login,
		&s.InviteHash, &invite, &s.HealthScore, &s.HealthTier, &healthAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, account.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	s.TokensNotBefore, s.LastLoginAt, s.InviteExpiresAt = utcOrZero(nbf), utcOrZero(login), utcOrZero(invite)
	s.HealthAt = utcOrZero(healthAt)
	return account.FromSnapshot(s), nil
}

func utcOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// nullTime stores a zero time as NULL.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (r *AccountRepository) Create(ctx context.Context, a *account.Account) error {
	s := a.Snapshot()
	return pgkit.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO accounts (id, email, password_hash, plan, role, owner_id,
			business_name, owner_name, phone, status, created_at, updated_at, invite_hash, invite_expires_at)
			VALUES ($1, $2, nullif($3, ''), $4, $5, nullif($6, ''), $7, $8, $9, $10, $11, $12, nullif($13, ''), $14)`,
			s.ID, s.Email, s.PasswordHash, s.Plan, s.Role, s.OwnerID, s.BusinessName, s.OwnerName,
			s.Phone, s.Status, s.CreatedAt, s.UpdatedAt, s.InviteHash, nullTime(s.InviteExpiresAt))
		if pgkit.UniqueViolation(err) {
			return account.ErrEmailTaken
		}
		if err != nil {
			return fmt.Errorf("insert account: %w", err)
		}
		return nil
	})
}

func (r *AccountRepository) ByID(ctx context.Context, id string) (*account.Account, error) {
	return scanAccount(pgkit.Q(ctx, r.pool).QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id))
}

func (r *AccountRepository) OwnerByEmail(ctx context.Context, email string) (*account.Account, error) {
	return scanAccount(pgkit.Q(ctx, r.pool).QueryRow(ctx,
		`SELECT `+accountColumns+` FROM accounts WHERE email = $1 AND role = 'owner'`, email))
}

func (r *AccountRepository) SignInByEmail(ctx context.Context, email string) (*account.Account, error) {
	return scanAccount(pgkit.Q(ctx, r.pool).QueryRow(ctx,
		`SELECT `+accountColumns+` FROM accounts WHERE email = $1 AND password_hash IS NOT NULL`, email))
}

func (r *AccountRepository) ClientByEmail(ctx context.Context, ownerID, email string) (*account.Account, error) {
	return scanAccount(pgkit.Q(ctx, r.pool).QueryRow(ctx,
		`SELECT `+accountColumns+` FROM accounts WHERE owner_id = $1 AND email = $2`, ownerID, email))
}

func (r *AccountRepository) CountClients(ctx context.Context, ownerID string) (int, error) {
	var n int
	err := pgkit.Q(ctx, r.pool).QueryRow(ctx,
		`SELECT count(*) FROM accounts WHERE owner_id = $1 AND status <> 'disabled'`, ownerID).Scan(&n)
	return n, err
}

func (r *AccountRepository) IDByInvitation(ctx context.Context, inviteHash string) (string, error) {
	var id string
	err := pgkit.Q(ctx, r.pool).QueryRow(ctx, `SELECT id FROM accounts WHERE invite_hash = $1`, inviteHash).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", account.ErrNotFound
	}
	return id, err
}

// Update hands fn a ctx carrying the row-locking transaction, so what fn publishes commits with
// the change.
func (r *AccountRepository) Update(ctx context.Context, id string, fn func(context.Context, *account.Account) error) (*account.Account, error) {
	var updated *account.Account
	err := pgkit.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		a, err := scanAccount(tx.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		if err := fn(pgkit.WithTx(ctx, tx), a); err != nil {
			return err
		}
		s := a.Snapshot()
		_, err = tx.Exec(ctx, `UPDATE accounts SET password_hash = nullif($2, ''), plan = $3, status = $4,
			business_name = $5, owner_name = $6, phone = $7, updated_at = $8, tokens_not_before = $9,
			last_login_at = $10, invite_hash = nullif($11, ''), invite_expires_at = $12,
			health_score = $13, health_tier = nullif($14, ''), health_at = $15 WHERE id = $1`,
			s.ID, s.PasswordHash, s.Plan, s.Status, s.BusinessName, s.OwnerName, s.Phone, s.UpdatedAt,
			nullTime(s.TokensNotBefore), nullTime(s.LastLoginAt), s.InviteHash, nullTime(s.InviteExpiresAt),
			s.HealthScore, s.HealthTier, nullTime(s.HealthAt))
		if pgkit.UniqueViolation(err) {
			return account.ErrEmailTaken
		}
		if err != nil {
			return fmt.Errorf("update account: %w", err)
		}
		updated = a
		return nil
	})
	return updated, err
}

func (r *AccountRepository) List(ctx context.Context, f account.ListFilter) ([]*account.Account, error) {
	limit := f.Limit
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	var (
		rows pgx.Rows
		err  error
	)
	if f.OwnerID == "" {
		rows, err = pgkit.Q(ctx, r.pool).Query(ctx, `SELECT `+accountColumns+` FROM accounts WHERE role = 'owner'
			ORDER BY created_at, id LIMIT $1`, limit)
	} else {
		rows, err = pgkit.Q(ctx, r.pool).Query(ctx, `SELECT `+accountColumns+` FROM accounts WHERE owner_id = $1
			ORDER BY created_at, id LIMIT $2`, f.OwnerID, limit)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*account.Account
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
