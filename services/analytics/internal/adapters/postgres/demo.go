package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
)

// Demo writes `analytics demo seed` data: client accounts with demo = true and their activity.
type Demo struct {
	pool *pgxpool.Pool
}

func NewDemo(pool *pgxpool.Pool) *Demo { return &Demo{pool: pool} }

func (d *Demo) OwnerByEmail(ctx context.Context, email string) (string, bool, error) {
	var id string
	// The newest owner with the email: after identity's data is reset, the old one is gone.
	err := d.pool.QueryRow(ctx, `SELECT account_id FROM accounts WHERE email = $1 AND owner_id IS NULL
		ORDER BY created_at DESC LIMIT 1`, email).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("demo owner: %w", err)
	}
	return id, true, nil
}

func (d *Demo) AddDemoClients(ctx context.Context, ownerID string, clients []app.DemoClient) (bool, error) {
	added := false
	err := pgkit.InTx(ctx, d.pool, func(tx pgx.Tx) error {
		// The owner row is locked so two seeds at once cannot both add clients.
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE owner_id = $1 AND demo)
			FROM accounts WHERE account_id = $1 FOR UPDATE`, ownerID).Scan(&exists); err != nil {
			return fmt.Errorf("check demo clients: %w", err)
		}
		if exists {
			return nil
		}
		batch := &pgx.Batch{}
		for _, c := range clients {
			var lastLogin any
			if n := len(c.Logins); n > 0 {
				lastLogin = c.Logins[n-1]
			}
			batch.Queue(`INSERT INTO accounts (account_id, owner_id, email, business_name, plan, plan_at, created_at,
					last_login_at, payment_status, payment_failures, demo)
				VALUES ($1, $2, $3, $4, 'growth', $5, $5, $6, $7, $8, true)`,
				c.AccountID, ownerID, c.Email, c.BusinessName, c.CreatedAt, lastLogin, c.Payment.Status, c.Payment.Failures)
			for _, at := range c.Logins {
				batch.Queue(`INSERT INTO activity_daily (account_id, day, kind, n) VALUES ($1, $2, 'login', 1)`, c.AccountID, dayOf(at))
			}
			for _, at := range c.Leads {
				batch.Queue(`INSERT INTO activity_daily (account_id, day, kind, n) VALUES ($1, $2, 'lead', 1)`, c.AccountID, dayOf(at))
			}
			for _, u := range c.Uses {
				// Metered features as the features record them: reservations.
				batch.Queue(`INSERT INTO usage_daily (account_id, day, feature, uses, lane)
						VALUES ($1, $2, $3, $4, CASE WHEN $3 = ANY($5::text[]) THEN $6 ELSE 0 END)`,
					c.AccountID, u.Day, u.Feature, u.Uses, metered(), laneReservation)
			}
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return fmt.Errorf("insert demo clients: %w", err)
		}
		added = true
		return nil
	})
	return added, err
}
