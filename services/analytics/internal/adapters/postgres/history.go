package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

// History reads an account's score changes since since, led by the one in effect at since.
func (h *Health) History(ctx context.Context, accountID string, since time.Time) ([]app.HistoryPoint, error) {
	// Scores computed at the same instant come in the order they were written (id).
	rows, err := h.reads.Pool().Query(ctx, `SELECT computed_at, score, tier, signals FROM (
		(SELECT id, computed_at, score, tier, signals FROM health_scores
			WHERE account_id = $1 AND computed_at < $2 ORDER BY computed_at DESC, id DESC LIMIT 1)
		UNION ALL
		(SELECT id, computed_at, score, tier, signals FROM health_scores
			WHERE account_id = $1 AND computed_at >= $2)) AS h
		ORDER BY computed_at, id`, accountID, since)
	if err != nil {
		return nil, fmt.Errorf("score history: %w", err)
	}
	points, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (app.HistoryPoint, error) {
		var (
			p       app.HistoryPoint
			score   int32
			tier    string
			signals []byte
		)
		if err := row.Scan(&p.At, &score, &tier, &signals); err != nil {
			return p, err
		}
		p.At, p.Score, p.Tier = p.At.UTC(), int(score), health.Tier(tier)
		return p, json.Unmarshal(signals, &p.Signals)
	})
	if err != nil {
		return nil, fmt.Errorf("score history: %w", err)
	}
	return points, nil
}

// IsClient reports whether clientID belongs to ownerID.
func (h *Health) IsClient(ctx context.Context, ownerID, clientID string) (bool, error) {
	var ok bool
	err := h.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE account_id = $1 AND owner_id = $2)`,
		clientID, ownerID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("is client: %w", err)
	}
	return ok, nil
}
