package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// Allowances keeps batch_usage rows, one per account and month, under plan_batch_allowances.
type Allowances struct{ pool *pgxpool.Pool }

func NewAllowances(pool *pgxpool.Pool) *Allowances { return &Allowances{pool: pool} }

// Update holds the (account, month) row lock from read to write, so concurrent batches of one
// account are admitted one after another against the up-to-date count. A plan without a row in
// plan_batch_allowances gets the free plan's limit. Unlimited plans take no lock and keep no
// count (their use is in usage.recorded), so their batches never queue behind each other.
func (s *Allowances) Update(ctx context.Context, accountID, plan string, month time.Time,
	fn func(*sheet.Allowance) ([]events.Envelope, error)) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var limit *int
		err := tx.QueryRow(ctx, `SELECT monthly_limit FROM plan_batch_allowances WHERE plan IN ($1, 'free')
			ORDER BY plan = $1 DESC LIMIT 1`, plan).Scan(&limit)
		if err != nil {
			return fmt.Errorf("read plan allowance: %w", err)
		}
		if limit == nil {
			envs, err := fn(sheet.RebuildAllowance(0, nil))
			if err != nil {
				return err
			}
			return events.Enqueue(ctx, tx, envs...)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO batch_usage (account_id, month) VALUES ($1, $2)
			ON CONFLICT DO NOTHING`, accountID, month); err != nil {
			return fmt.Errorf("create allowance row: %w", err)
		}
		var used int
		err = tx.QueryRow(ctx, `SELECT used FROM batch_usage WHERE account_id = $1 AND month = $2 FOR UPDATE`,
			accountID, month).Scan(&used)
		if err != nil {
			return fmt.Errorf("lock allowance: %w", err)
		}
		a := sheet.RebuildAllowance(used, limit)
		envs, err := fn(a)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE batch_usage SET used = $3 WHERE account_id = $1 AND month = $2`,
			accountID, month, a.Used()); err != nil {
			return fmt.Errorf("save allowance: %w", err)
		}
		return events.Enqueue(ctx, tx, envs...)
	})
}
