package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

const subscriptionColumns = `id, account_id, event, hook_url, secret, status, created_at, failing_since`

func (s *Store) scanSubscription(row pgx.Row) (domain.Subscription, error) {
	var (
		id, accountID, event, hookURL, stored, status string
		createdAt                                     time.Time
		failingSince                                  *time.Time
	)
	if err := row.Scan(&id, &accountID, &event, &hookURL, &stored, &status, &createdAt, &failingSince); err != nil {
		return domain.Subscription{}, err
	}
	secret, err := s.openSecret(id, stored)
	if err != nil {
		return domain.Subscription{}, err
	}
	return domain.RehydrateSubscription(id, accountID, event, hookURL, secret, domain.SubscriptionStatus(status), createdAt, failingSince), nil
}

// CreateSubscription implements app.SubscriptionStore.
func (s *Store) CreateSubscription(ctx context.Context, sub domain.Subscription) (domain.Subscription, bool, error) {
	s.reads.Wrote(ctx, sub.AccountID())
	sealed, err := s.sealSecret(sub.ID(), sub.Secret())
	if err != nil {
		return domain.Subscription{}, false, err
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO subscriptions (`+subscriptionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (account_id, event, hook_url) DO NOTHING`,
		sub.ID(), sub.AccountID(), sub.Event(), sub.HookURL(), sealed, sub.Status(), sub.CreatedAt(), sub.FailingSince())
	if err != nil {
		return domain.Subscription{}, false, wrap("create subscription", err)
	}
	if tag.RowsAffected() == 1 {
		return sub, true, nil
	}
	existing, err := s.scanSubscription(s.pool.QueryRow(ctx, `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE account_id = $1 AND event = $2 AND hook_url = $3`, sub.AccountID(), sub.Event(), sub.HookURL()))
	return existing, false, wrap("find subscription", err)
}

// ListSubscriptions implements app.SubscriptionStore.
func (s *Store) ListSubscriptions(ctx context.Context, accountID string) ([]domain.Subscription, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+subscriptionColumns+` FROM subscriptions WHERE account_id = $1 ORDER BY id`, accountID)
	if err != nil {
		return nil, wrap("list subscriptions", err)
	}
	subs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Subscription, error) { return s.scanSubscription(r) })
	return subs, wrap("list subscriptions", err)
}

// DeleteSubscription implements app.SubscriptionStore; deliveries and attempts go with it.
func (s *Store) DeleteSubscription(ctx context.Context, accountID, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM subscriptions WHERE id = $1 AND account_id = $2`, id, accountID)
	if err == nil && tag.RowsAffected() == 0 {
		return app.ErrNotFound
	}
	return wrap("delete subscription", err)
}

// Attempts implements app.SubscriptionStore.
func (s *Store) Attempts(ctx context.Context, accountID, subscriptionID string, limit int) ([]app.Attempt, error) {
	db := s.reads.For(ctx, accountID) // the account's own new subscription is read from the primary
	var exists bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM subscriptions WHERE id = $1 AND account_id = $2)`,
		subscriptionID, accountID).Scan(&exists); err != nil {
		return nil, wrap("find subscription", err)
	}
	if !exists {
		return nil, app.ErrNotFound
	}
	rows, err := db.Query(ctx, `SELECT a.delivery_id, d.event, a.attempted_at, coalesce(a.status_code, 0), a.latency_ms, coalesce(a.error, '')
		FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
		WHERE a.subscription_id = $1 ORDER BY a.attempted_at DESC, a.id DESC LIMIT $2`, subscriptionID, limit)
	if err != nil {
		return nil, wrap("list attempts", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (app.Attempt, error) {
		var a app.Attempt
		err := r.Scan(&a.DeliveryID, &a.Event, &a.AttemptedAt, &a.StatusCode, &a.LatencyMS, &a.Error)
		return a, err
	})
	return out, wrap("list attempts", err)
}

// Replay implements app.SubscriptionStore.
func (s *Store) Replay(ctx context.Context, accountID, deliveryID string) error {
	return wrap("replay", pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var status string
		err := tx.QueryRow(ctx, `SELECT d.status FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id
			WHERE d.id = $1 AND s.account_id = $2 AND s.status = 'active' FOR UPDATE OF d`, deliveryID, accountID).Scan(&status)
		if err != nil {
			return notFound(err)
		}
		if status == "pending" {
			return app.ErrPending
		}
		if _, err := tx.Exec(ctx, `UPDATE deliveries SET status = 'pending', created_at = now() WHERE id = $1`, deliveryID); err != nil {
			return err
		}
		return s.jobs.EnqueueTx(ctx, tx, accountID, deliveryID)
	}))
}

// Plan implements app.Planner; the deliveries and their jobs join the transaction ctx carries.
func (s *Store) Plan(ctx context.Context, accountID string, msg domain.Message) (int, error) {
	rows, err := pgkit.Q(ctx, s.pool).Query(ctx, `SELECT id FROM subscriptions WHERE account_id = $1 AND event = $2 AND status = 'active'`, accountID, msg.Event)
	if err != nil {
		return 0, wrap("find subscribers", err)
	}
	subIDs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(subIDs) == 0 {
		return 0, wrap("find subscribers", err)
	}
	deliveryIDs := make([]string, len(subIDs))
	for i := range subIDs {
		deliveryIDs[i] = ids.New("msg")
	}
	err = pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO deliveries (id, subscription_id, event, payload, status)
			SELECT d, s, $3, $4, 'pending' FROM unnest($1::text[], $2::text[]) AS r(d, s)`,
			deliveryIDs, subIDs, msg.Event, msg.Body); err != nil {
			return wrap("plan deliveries", err)
		}
		return wrap("queue deliveries", s.jobs.EnqueueTx(ctx, tx, accountID, deliveryIDs...))
	})
	if err != nil {
		return 0, err
	}
	return len(deliveryIDs), nil
}

// Target implements app.DeliveryStore.
func (s *Store) Target(ctx context.Context, deliveryID string) (app.DeliveryTarget, error) {
	row := s.pool.QueryRow(ctx, `SELECT d.id, d.created_at, d.payload, s.id, s.account_id, s.event, s.hook_url, s.secret, s.status, s.created_at, s.failing_since
		FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id WHERE d.id = $1 AND d.status = 'pending'`, deliveryID)
	var (
		t                                            app.DeliveryTarget
		subID, accountID, event, hookURL, stored, st string
		subCreated                                   time.Time
		failingSince                                 *time.Time
	)
	err := row.Scan(&t.DeliveryID, &t.CreatedAt, &t.Payload, &subID, &accountID, &event, &hookURL, &stored, &st, &subCreated, &failingSince)
	if err != nil {
		return app.DeliveryTarget{}, wrap("load delivery", notFound(err))
	}
	secret, err := s.openSecret(subID, stored)
	if err != nil {
		return app.DeliveryTarget{}, err
	}
	t.Subscription = domain.RehydrateSubscription(subID, accountID, event, hookURL, secret, domain.SubscriptionStatus(st), subCreated, failingSince)
	return t, nil
}

// Record implements app.DeliveryStore. Attempts recorded at the same time by the delivery
// workers share one transaction (pgkit.Group): one commit for many deliveries.
func (s *Store) Record(ctx context.Context, r app.AttemptRecord) error {
	return wrap("record attempt", s.records.Do(ctx, r))
}

// recordAll logs the attempts and applies their effects in one transaction, in one round trip.
func (s *Store) recordAll(ctx context.Context, records []app.AttemptRecord) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for _, r := range records {
			queueRecord(batch, r)
		}
		return tx.SendBatch(ctx, batch).Close()
	})
}

func queueRecord(batch *pgx.Batch, r app.AttemptRecord) {
	if r.Outcome == domain.Gone {
		batch.Queue(`DELETE FROM subscriptions WHERE id = $1`, r.SubscriptionID)
		return
	}
	var errText *string
	if r.Error != "" {
		errText = &r.Error
	}
	deliveryStatus := "pending"
	switch {
	case r.Outcome == domain.Delivered:
		deliveryStatus = "delivered"
	case r.GiveUp:
		deliveryStatus = "failed"
	}
	batch.Queue(`INSERT INTO delivery_attempts (delivery_id, subscription_id, attempted_at, status_code, latency_ms, error)
		VALUES ($1, $2, $3, NULLIF($4, 0), $5, $6)`, r.DeliveryID, r.SubscriptionID, r.At, r.StatusCode, r.Latency.Milliseconds(), errText)
	batch.Queue(`UPDATE deliveries SET attempts = attempts + 1, status = $2::text,
		delivered_at = CASE WHEN $2::text = 'delivered' THEN $3::timestamptz END WHERE id = $1`, r.DeliveryID, deliveryStatus, r.At)
	switch {
	case r.Outcome == domain.Delivered:
		batch.Queue(`UPDATE subscriptions SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, r.SubscriptionID)
	case r.Disable:
		batch.Queue(`UPDATE subscriptions SET failing_since = coalesce(failing_since, $2), status = 'disabled' WHERE id = $1`,
			r.SubscriptionID, r.At)
		// Its other queued deliveries stop too; their jobs find nothing pending and end.
		batch.Queue(`UPDATE deliveries SET status = 'canceled' WHERE subscription_id = $1 AND status = 'pending'`, r.SubscriptionID)
	default:
		batch.Queue(`UPDATE subscriptions SET failing_since = coalesce(failing_since, $2) WHERE id = $1`, r.SubscriptionID, r.At)
	}
}

// Prune implements app.Pruner. Queued deliveries are kept whatever their age.
func (s *Store) Prune(ctx context.Context, before time.Time, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM deliveries WHERE id IN (
		SELECT id FROM deliveries WHERE status <> 'pending' AND created_at < $1 LIMIT $2)`, before, limit)
	if err != nil {
		return 0, wrap("prune deliveries", err)
	}
	n := int(tag.RowsAffected())
	tag, err = s.pool.Exec(ctx, `DELETE FROM payment_events WHERE id IN (
		SELECT id FROM payment_events WHERE received_at < $1 LIMIT $2)`, before, limit)
	if err != nil {
		return n, wrap("prune payment events", err)
	}
	return n + int(tag.RowsAffected()), nil
}
