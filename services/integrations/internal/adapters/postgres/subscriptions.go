package postgres

import (
	"context"
	"math"
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
		return s.jobs.EnqueueTx(ctx, tx, app.DeliveryJob{DeliveryID: deliveryID, AccountID: accountID})
	}))
}

// Plan implements app.Planner; the deliveries join the transaction ctx carries. With a
// dispatcher they are claimed for it and handed to it when that transaction commits; without
// one, each is queued as a job in the same transaction.
func (s *Store) Plan(ctx context.Context, accountID string, msg domain.Message) (int, error) {
	rows, err := pgkit.Q(ctx, s.pool).Query(ctx, `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE account_id = $1 AND event = $2 AND status = 'active'`, accountID, msg.Event)
	if err != nil {
		return 0, wrap("find subscribers", err)
	}
	subs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Subscription, error) { return s.scanSubscription(r) })
	if err != nil || len(subs) == 0 {
		return 0, wrap("find subscribers", err)
	}
	now := time.Now().UTC()
	targets := make([]app.DeliveryTarget, len(subs))
	deliveryIDs, subIDs := make([]string, len(subs)), make([]string, len(subs))
	for i, sub := range subs {
		targets[i] = app.DeliveryTarget{DeliveryID: ids.New("msg"), CreatedAt: now, Payload: msg.Body, Subscription: sub}
		deliveryIDs[i], subIDs[i] = targets[i].DeliveryID, sub.ID()
	}
	if s.dispatch == nil {
		return len(targets), s.planJobs(ctx, accountID, msg, deliveryIDs, subIDs)
	}
	// The claim runs on the database's clock, which the sweepers read; the dispatcher keeps its
	// own copy on this process's clock, which it reads with a margin.
	lease := s.dispatch.Lease()
	until := now.Add(lease)
	if _, err := pgkit.Q(ctx, s.pool).Exec(ctx, `INSERT INTO deliveries (id, subscription_id, event, payload, status, created_at, claimed_until)
		SELECT d, s, $3, $4, 'pending', $5, now() + make_interval(secs => $6) FROM unnest($1::text[], $2::text[]) AS r(d, s)`,
		deliveryIDs, subIDs, msg.Event, msg.Body, now, lease.Seconds()); err != nil {
		return 0, wrap("plan deliveries", err)
	}
	if err := pgkit.AfterCommit(ctx, func() { s.dispatch.Dispatch(until, targets) }); err != nil {
		return 0, err
	}
	return len(targets), nil
}

// planJobs writes the deliveries, each with its queued job.
func (s *Store) planJobs(ctx context.Context, accountID string, msg domain.Message, deliveryIDs, subIDs []string) error {
	jobs := make([]app.DeliveryJob, len(deliveryIDs))
	for i, id := range deliveryIDs {
		jobs[i] = app.DeliveryJob{DeliveryID: id, AccountID: accountID}
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO deliveries (id, subscription_id, event, payload, status)
			SELECT d, s, $3, $4, 'pending' FROM unnest($1::text[], $2::text[]) AS r(d, s)`,
			deliveryIDs, subIDs, msg.Event, msg.Body); err != nil {
			return wrap("plan deliveries", err)
		}
		return wrap("queue deliveries", s.jobs.EnqueueTx(ctx, tx, jobs...))
	})
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

// recordAll logs the attempts and applies their effects in one transaction: the attempt rows
// and delivery states of the whole batch in one statement, with what only some attempts change
// (a subscription's failure streak, its removal or disabling) in the same round trip, the only
// one unless dispatched deliveries need their retry jobs (River queues them in a transaction).
func (s *Store) recordAll(ctx context.Context, records []app.AttemptRecord) error {
	var (
		attempts attemptRows
		retries  []app.DeliveryJob
	)
	for _, r := range records {
		if r.Outcome != domain.Gone {
			attempts.add(r)
		}
		if r.Requeue != nil {
			retries = append(retries, *r.Requeue)
		}
	}
	batch := &pgx.Batch{}
	if len(attempts.deliveryIDs) > 0 {
		// A delivery canceled meanwhile (its subscription disabled) stays canceled; the claim of a
		// dispatched one ends with its attempt (a retry is a queued job's).
		batch.Queue(`WITH logged AS (
			INSERT INTO delivery_attempts (delivery_id, subscription_id, attempted_at, status_code, latency_ms, error)
			SELECT d, s, t, NULLIF(c, 0), l, NULLIF(e, '')
			FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[], $5::int[], $6::text[]) AS r(d, s, t, c, l, e))
		UPDATE deliveries SET attempts = attempts + 1, status = u.status, claimed_until = NULL,
			delivered_at = CASE WHEN u.status = 'delivered' THEN u.t END
		FROM unnest($1::text[], $7::text[], $3::timestamptz[]) AS u(d, status, t)
		WHERE deliveries.id = u.d AND deliveries.status = 'pending'`,
			attempts.deliveryIDs, attempts.subscriptionIDs, attempts.at, attempts.statusCodes, attempts.latencyMS,
			attempts.errors, attempts.deliveryStatus)
	}
	for _, r := range records {
		queueEffects(batch, r)
	}
	if len(retries) == 0 {
		// One round trip: a batch sent outside a transaction is one implicit transaction.
		return s.pool.SendBatch(ctx, batch).Close()
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
		return s.jobs.EnqueueTx(ctx, tx, retries...)
	})
}

// attemptRows are a batch of attempts as columns, for one statement over all of them.
type attemptRows struct {
	deliveryIDs, subscriptionIDs, errors, deliveryStatus []string
	at                                                   []time.Time
	statusCodes, latencyMS                               []int32
}

func (a *attemptRows) add(r app.AttemptRecord) {
	status := "pending"
	switch {
	case r.Outcome == domain.Delivered:
		status = "delivered"
	case r.GiveUp:
		status = "failed"
	}
	a.deliveryIDs = append(a.deliveryIDs, r.DeliveryID)
	a.subscriptionIDs = append(a.subscriptionIDs, r.SubscriptionID)
	a.at = append(a.at, r.At)
	a.statusCodes = append(a.statusCodes, int32(r.StatusCode))                             //nolint:gosec // an HTTP status code
	a.latencyMS = append(a.latencyMS, int32(min(r.Latency.Milliseconds(), math.MaxInt32))) //nolint:gosec // bounded above
	a.errors = append(a.errors, r.Error)
	a.deliveryStatus = append(a.deliveryStatus, status)
}

// queueEffects queues what an attempt changes besides its own row and its delivery's state.
func queueEffects(batch *pgx.Batch, r app.AttemptRecord) {
	switch {
	case r.Outcome == domain.Gone:
		batch.Queue(`DELETE FROM subscriptions WHERE id = $1`, r.SubscriptionID)
	case r.Outcome == domain.Delivered:
		if r.Recovered {
			batch.Queue(`UPDATE subscriptions SET failing_since = NULL WHERE id = $1`, r.SubscriptionID)
		}
	case r.Disable:
		batch.Queue(`UPDATE subscriptions SET failing_since = coalesce(failing_since, $2), status = 'disabled' WHERE id = $1`,
			r.SubscriptionID, r.At)
		// Its other queued deliveries stop too; their jobs find nothing pending and end.
		batch.Queue(`UPDATE deliveries SET status = 'canceled', claimed_until = NULL WHERE subscription_id = $1 AND status = 'pending'`, r.SubscriptionID)
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

// CanonicalizeHookURLs rewrites the hook URLs stored before subscribe kept them in canonical form
// (domain.CanonicalHookURL) and folds the subscriptions that turn out to be spellings of one
// target into the oldest active one, as migration 003 folded identical spellings; the others'
// queued deliveries go with them. A stored URL that no longer validates stays as written. It
// reports how many subscriptions it rewrote or removed.
func (s *Store) CanonicalizeHookURLs(ctx context.Context) (int, error) {
	changed := 0
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, account_id, event, hook_url FROM subscriptions
			ORDER BY (status = 'active') DESC, created_at, id FOR UPDATE`)
		if err != nil {
			return err
		}
		stored, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ ID, Account, Event, URL string }])
		if err != nil {
			return err
		}
		kept := map[[3]string]bool{}
		var removed, rewritten []string
		var urls []string
		for _, sub := range stored {
			canonical, err := domain.CanonicalHookURL(sub.URL)
			if err != nil {
				canonical = sub.URL
			}
			key := [3]string{sub.Account, sub.Event, canonical}
			switch {
			case kept[key]:
				removed = append(removed, sub.ID)
			case canonical != sub.URL:
				rewritten, urls = append(rewritten, sub.ID), append(urls, canonical)
			}
			kept[key] = true
		}
		// Copies go first, so that no rewritten URL meets the unique index's old holder.
		if _, err := tx.Exec(ctx, `DELETE FROM subscriptions WHERE id = ANY($1)`, removed); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE subscriptions SET hook_url = u.url
			FROM unnest($1::text[], $2::text[]) AS u(id, url) WHERE subscriptions.id = u.id`, rewritten, urls); err != nil {
			return err
		}
		changed = len(removed) + len(rewritten)
		return nil
	})
	return changed, wrap("canonicalize hook URLs", err)
}
