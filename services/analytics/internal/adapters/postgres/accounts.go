package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// Accounts is the account projection: the app's read side, and the writes the projection use
// cases make inside the consumer's transaction (which ctx carries).
type Accounts struct {
	pool *pgxpool.Pool
}

func NewAccounts(pool *pgxpool.Pool) *Accounts { return &Accounts{pool: pool} }

// Ensure keeps the token's plan for scoring only: plan_at stays NULL, so Plan still answers
// from the next token, not from whichever token came first.
func (a *Accounts) Ensure(ctx context.Context, c app.Caller, now time.Time) error {
	_, err := a.pool.Exec(ctx, `INSERT INTO accounts (account_id, email, plan, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (account_id) DO NOTHING`, c.AccountID, c.Email, c.Plan, now)
	if err != nil {
		return fmt.Errorf("ensure account: %w", err)
	}
	return nil
}

// effectivePlan is the plan of account a (joined with its owner as o): a client's is an
// entitlement its owner pays for, so never above the owner's plan, and free while the owner's is
// unknown. Read, not stored, so an owner's downgrade reaches every client at once.
const effectivePlan = `CASE WHEN a.owner_id IS NULL THEN a.plan
	WHEN array_position(ARRAY['free', 'growth', 'full_stack'], coalesce(o.plan, 'free'))
		< array_position(ARRAY['free', 'growth', 'full_stack'], a.plan) THEN coalesce(o.plan, 'free')
	ELSE a.plan END`

// Plan is the plan an event last set, at most the owner's for a client (effectivePlan); a row
// no plan event reached yet has none (false).
func (a *Accounts) Plan(ctx context.Context, accountID string) (string, bool, error) {
	var plan string
	err := a.pool.QueryRow(ctx, `SELECT `+effectivePlan+` FROM accounts a LEFT JOIN accounts o ON o.account_id = a.owner_id
		WHERE a.account_id = $1 AND a.plan_at IS NOT NULL`, accountID).Scan(&plan)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("account plan: %w", err)
	}
	return plan, true, nil
}

// Created implements app.Projection.
func (a *Accounts) Created(ctx context.Context, n app.NewAccount) error {
	var owner *string
	if n.OwnerID != "" {
		owner = &n.OwnerID
	}
	return pgkit.JoinTx(ctx, a.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO accounts (account_id, owner_id, email, business_name, plan, plan_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6)
			ON CONFLICT (account_id) DO UPDATE SET owner_id = excluded.owner_id, email = excluded.email,
				business_name = excluded.business_name, created_at = excluded.created_at,
				plan = CASE WHEN accounts.plan_at IS NULL OR accounts.plan_at <= excluded.plan_at THEN excluded.plan ELSE accounts.plan END,
				plan_at = GREATEST(accounts.plan_at, excluded.plan_at)`,
			n.AccountID, owner, n.Email, n.BusinessName, n.Plan, n.CreatedAt)
		if err != nil {
			return fmt.Errorf("project account.created: %w", err)
		}
		return markDirty(ctx, tx, laneProjection, n.AccountID)
	})
}

// LoggedIn implements app.Projection.
func (a *Accounts) LoggedIn(ctx context.Context, accountID, email string, at time.Time) error {
	return pgkit.JoinTx(ctx, a.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO accounts (account_id, email, created_at, last_login_at) VALUES ($1, $2, $3, $3)
			ON CONFLICT (account_id) DO UPDATE SET last_login_at = GREATEST(accounts.last_login_at, excluded.last_login_at)`,
			accountID, email, at)
		if err != nil {
			return fmt.Errorf("project account.login: %w", err)
		}
		return activity(ctx, tx, accountID, app.ActivityLogin, at)
	})
}

// PlanChanged implements app.Projection.
func (a *Accounts) PlanChanged(ctx context.Context, accountID, plan string, at time.Time) error {
	return pgkit.JoinTx(ctx, a.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO accounts (account_id, plan, plan_at, created_at) VALUES ($1, $2, $3, $3)
			ON CONFLICT (account_id) DO UPDATE SET plan = excluded.plan, plan_at = excluded.plan_at
			WHERE accounts.plan_at IS NULL OR accounts.plan_at <= excluded.plan_at`, accountID, plan, at)
		if err != nil {
			return fmt.Errorf("project account.plan_changed: %w", err)
		}
		return markDirty(ctx, tx, laneProjection, accountID)
	})
}

// UpdatePayment implements app.Projection.
func (a *Accounts) UpdatePayment(ctx context.Context, accountID string, seen time.Time, fn func(health.PaymentState) (health.PaymentState, bool)) error {
	return pgkit.JoinTx(ctx, a.pool, func(tx pgx.Tx) error {
		// The account may not be projected yet; account.created completes the row later.
		if _, err := tx.Exec(ctx, `INSERT INTO accounts (account_id, created_at) VALUES ($1, $2)
			ON CONFLICT (account_id) DO NOTHING`, accountID, seen); err != nil {
			return fmt.Errorf("project payment: %w", err)
		}
		var (
			s    health.PaymentState
			last *time.Time
		)
		err := tx.QueryRow(ctx, `SELECT payment_status, payment_failures, payment_at FROM accounts
			WHERE account_id = $1 FOR UPDATE`, accountID).Scan(&s.Status, &s.Failures, &last)
		if err != nil {
			return fmt.Errorf("project payment: %w", err)
		}
		if last != nil {
			s.At = *last
		}
		next, changed := fn(s)
		if !changed {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET payment_status = $2, payment_failures = $3, payment_at = $4
			WHERE account_id = $1`, accountID, next.Status, next.Failures, next.At); err != nil {
			return fmt.Errorf("project payment: %w", err)
		}
		return markDirty(ctx, tx, laneProjection, accountID)
	})
}

// Activity implements app.Projection.
func (a *Accounts) Activity(ctx context.Context, accountID string, kind app.Activity, at time.Time) error {
	return pgkit.JoinTx(ctx, a.pool, func(tx pgx.Tx) error { return activity(ctx, tx, accountID, kind, at) })
}

// activity counts one login, lead written or inbound event on at's UTC day and marks the account
// dirty, in one statement: it runs for every lead twice.
func activity(ctx context.Context, tx pgx.Tx, accountID string, kind app.Activity, at time.Time) error {
	_, err := tx.Exec(ctx, `WITH counted AS (
			INSERT INTO activity_daily (account_id, day, kind, n) VALUES ($1, $2, $3, 1)
			ON CONFLICT (account_id, day, kind) DO UPDATE SET n = activity_daily.n + 1)
		INSERT INTO dirty_accounts (account_id, lane) VALUES ($1, $4) ON CONFLICT DO NOTHING`,
		accountID, dayOf(at), kind, laneProjection)
	if err != nil {
		return fmt.Errorf("project %s activity: %w", kind, err)
	}
	return nil
}

// UsageRecorded implements app.Projection; a repeat of the event's id is a no-op.
func (a *Accounts) UsageRecorded(ctx context.Context, e usage.Event) error {
	return pgkit.JoinTx(ctx, a.pool, func(tx pgx.Tx) error { return storeRecorded(ctx, tx, e) })
}

var _ app.Projection = (*Accounts)(nil)
