package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
)

// QueueClaimed hands dispatched deliveries that their dispatcher will not attempt (it is full or
// stopping) to queued jobs. Deliveries no longer claimed (attempted, or already handed over) are
// left alone.
func (s *Store) QueueClaimed(ctx context.Context, deliveryIDs []string) (int, error) {
	return s.queueClaims(ctx, `d.id = ANY($1::text[])`, deliveryIDs)
}

// QueueExpiredClaims hands at most limit pending deliveries whose claim has run out (their
// process died, or fell too far behind to attempt them in time) to queued jobs. Replicas may
// sweep at once: each takes rows the others have not locked.
func (s *Store) QueueExpiredClaims(ctx context.Context, limit int) (int, error) {
	return s.queueClaims(ctx, `d.id IN (SELECT id FROM deliveries WHERE claimed_until < now() AND status = 'pending'
		ORDER BY claimed_until LIMIT $1 FOR UPDATE SKIP LOCKED)`, limit)
}

// queueClaims ends the claims of the pending deliveries that match and queues their jobs, in one
// transaction, so each delivery has exactly one owner at any time.
func (s *Store) queueClaims(ctx context.Context, match string, arg any) (int, error) {
	var n int
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `UPDATE deliveries d SET claimed_until = NULL FROM subscriptions s
			WHERE `+match+` AND d.claimed_until IS NOT NULL AND d.status = 'pending' AND s.id = d.subscription_id
			RETURNING d.id, s.account_id`, arg)
		if err != nil {
			return err
		}
		jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (app.DeliveryJob, error) {
			var j app.DeliveryJob
			return j, r.Scan(&j.DeliveryID, &j.AccountID)
		})
		if err != nil {
			return err
		}
		n = len(jobs)
		return s.jobs.EnqueueTx(ctx, tx, jobs...)
	})
	return n, wrap("queue claimed deliveries", err)
}
