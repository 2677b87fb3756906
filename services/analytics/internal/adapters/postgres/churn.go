package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

// ChurnModels keeps fitted churn models and gathers the samples to fit them.
type ChurnModels struct {
	pool *pgxpool.Pool
}

func NewChurnModels(pool *pgxpool.Pool) *ChurnModels { return &ChurnModels{pool: pool} }

func (c *ChurnModels) Current(ctx context.Context) (health.ChurnModel, bool, error) {
	var (
		m   health.ChurnModel
		raw []byte
	)
	err := c.pool.QueryRow(ctx, `SELECT intercept, coefficients FROM churn_models ORDER BY id DESC LIMIT 1`).Scan(&m.Intercept, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return health.ChurnModel{}, false, nil
	}
	if err != nil {
		return health.ChurnModel{}, false, fmt.Errorf("churn model: %w", err)
	}
	if err := json.Unmarshal(raw, &m.Coefficients); err != nil {
		return health.ChurnModel{}, false, fmt.Errorf("decode churn model: %w", err)
	}
	return m, true, nil
}

func (c *ChurnModels) Save(ctx context.Context, m health.ChurnModel, churned, retained int, at time.Time) error {
	raw, err := json.Marshal(m.Coefficients)
	if err != nil {
		return fmt.Errorf("encode churn model: %w", err)
	}
	if _, err := c.pool.Exec(ctx, `INSERT INTO churn_models (fitted_at, intercept, coefficients, churned, retained)
		VALUES ($1, $2, $3, $4, $5)`, at, m.Intercept, raw, churned, retained); err != nil {
		return fmt.Errorf("save churn model: %w", err)
	}
	return nil
}

// Samples are the signals of real (not demo) paying accounts as they stood horizon before their
// cancellation (churned) or before now (retained: still subscribed). Accounts cancelling at
// the period's end are left out until they have an outcome.
func (c *ChurnModels) Samples(ctx context.Context, now time.Time, horizon time.Duration) ([]health.ChurnSample, error) {
	rows, err := c.pool.Query(ctx, `
		SELECT h.signals, a.payment_status = 'canceled'
		FROM accounts a
		CROSS JOIN LATERAL (
			SELECT s.signals FROM health_scores s
			WHERE s.account_id = a.account_id AND s.computed_at <= CASE
				WHEN a.payment_status = 'canceled' THEN a.payment_at ELSE $1 END - make_interval(secs => $2)
			ORDER BY s.computed_at DESC LIMIT 1) h
		WHERE NOT a.demo AND a.payment_status IN ('active', 'past_due', 'canceled')`, now, horizon.Seconds())
	if err != nil {
		return nil, fmt.Errorf("churn samples: %w", err)
	}
	var (
		out     []health.ChurnSample
		raw     []byte
		churned bool
	)
	_, err = pgx.ForEachRow(rows, []any{&raw, &churned}, func() error {
		var v health.Values
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		out = append(out, health.ChurnSample{Signals: v, Churned: churned})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("churn samples: %w", err)
	}
	return out, nil
}
