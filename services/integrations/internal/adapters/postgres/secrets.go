package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bizassist/bizassist/libs/sealbox"
)

// sealBatch is how many subscriptions SealSecrets reads at a time.
const sealBatch = 500

// sealer keeps subscription signing secrets sealed at rest with box.
type sealer struct{ box *sealbox.Box }

// seal is the stored form of a subscription's signing secret: sealed with the subscription's id
// as associated data, so a sealed secret cannot be moved to another row.
func (s sealer) seal(subscriptionID, secret string) (string, error) {
	sealed, err := s.box.Seal([]byte(secret), []byte(subscriptionID))
	if err != nil {
		return "", fmt.Errorf("seal the secret of %s: %w", subscriptionID, err)
	}
	return sealed, nil
}

// open is a stored signing secret in the clear. A plaintext one was stored before secrets were
// sealed (or by an older replica during a rollout); SealSecrets seals it.
func (s sealer) open(subscriptionID, stored string) (string, error) {
	if !sealbox.IsSealed(stored) {
		return stored, nil
	}
	secret, err := s.box.Open(stored, []byte(subscriptionID))
	if err != nil {
		return "", fmt.Errorf("open the secret of %s: %w", subscriptionID, err)
	}
	return string(secret), nil
}

// SealSecrets seals the signing secrets still stored in plaintext and reseals those sealed under
// an encryption key other than the current one, and reports how many it changed. A row another
// replica changed meanwhile is left as that replica wrote it.
func (s *Subscriptions) SealSecrets(ctx context.Context) (int, error) {
	changed, after := 0, ""
	for {
		rows, err := s.pool.Query(ctx, `SELECT id, secret FROM subscriptions WHERE id > $1 ORDER BY id LIMIT $2`, after, sealBatch)
		if err != nil {
			return changed, wrap("read secrets", err)
		}
		stored, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
			var row [2]string
			return row, r.Scan(&row[0], &row[1])
		})
		if err != nil || len(stored) == 0 {
			return changed, wrap("read secrets", err)
		}
		after = stored[len(stored)-1][0]
		updates := &pgx.Batch{}
		for _, row := range stored {
			id, old := row[0], row[1]
			if !s.secrets.box.Stale(old) {
				continue
			}
			secret, err := s.secrets.open(id, old)
			if err != nil {
				return changed, err
			}
			sealed, err := s.secrets.seal(id, secret)
			if err != nil {
				return changed, err
			}
			updates.Queue(`UPDATE subscriptions SET secret = $1 WHERE id = $2 AND secret = $3`, sealed, id, old).
				Exec(func(tag pgconn.CommandTag) error {
					changed += int(tag.RowsAffected())
					return nil
				})
		}
		if updates.Len() > 0 {
			if err := s.pool.SendBatch(ctx, updates).Close(); err != nil {
				return changed, wrap("seal secrets", err)
			}
		}
		if len(stored) < sealBatch {
			return changed, nil
		}
	}
}
