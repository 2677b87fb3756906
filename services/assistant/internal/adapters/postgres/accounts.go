package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// Accounts is the PostgreSQL store of the accounts' standing (feed_accounts).
type Accounts struct{ pool *pgxpool.Pool }

func NewAccounts(pool *pgxpool.Pool) *Accounts { return &Accounts{pool: pool} }

// Standing reads an account's standing; an account never heard of is not Known.
func (r *Accounts) Standing(ctx context.Context, accountID string) (domain.Standing, error) {
	var s domain.Standing
	var created *time.Time
	err := pgkit.Q(ctx, r.pool).QueryRow(ctx, `SELECT plan, created_at, disabled FROM feed_accounts WHERE account_id = $1`,
		accountID).Scan(&s.Plan, &created, &s.Disabled)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return domain.Standing{}, nil
	case err != nil:
		return domain.Standing{}, err
	}
	s.Known = true
	if created != nil {
		s.CreatedAt = created.UTC()
	}
	return s, nil
}

// Save keeps the latest plan by planAt (account.created and account.plan_changed come on two
// streams, in any order) and the creation time once known.
func (r *Accounts) Save(ctx context.Context, accountID, plan string, planAt, created time.Time) error {
	var createdAt *time.Time
	if !created.IsZero() {
		createdAt = &created
	}
	_, err := pgkit.Q(ctx, r.pool).Exec(ctx, `INSERT INTO feed_accounts AS a (account_id, plan, plan_at, created_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id) DO UPDATE SET
			plan = CASE WHEN excluded.plan_at >= a.plan_at THEN excluded.plan ELSE a.plan END,
			plan_at = GREATEST(a.plan_at, excluded.plan_at),
			created_at = COALESCE(excluded.created_at, a.created_at)`,
		accountID, plan, planAt, createdAt)
	return err
}

// Disable marks an account disabled; identity never enables one again.
func (r *Accounts) Disable(ctx context.Context, accountID string) error {
	_, err := pgkit.Q(ctx, r.pool).Exec(ctx, `INSERT INTO feed_accounts (account_id, plan, plan_at, disabled)
		VALUES ($1, '', '-infinity', true) ON CONFLICT (account_id) DO UPDATE SET disabled = true`, accountID)
	return err
}
