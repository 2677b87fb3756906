package postgres

import (
	"context"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Deliveries keeps outbound deliveries, their attempt log and their dispatch claims
// (claimed_until: a delivery planned for its process's dispatcher, which no queued job owns yet).
type Deliveries struct {
	pool    *pgxpool.Pool
	secrets sealer       // of the subscription a delivery goes to
	reads   *pgkit.Reads // the delivery log, which tolerates replication lag
}

// NewDeliveries returns the delivery store; reads serves the delivery log (pgkit.PrimaryReads
// without a replica).
func NewDeliveries(pool *pgxpool.Pool, box *sealbox.Box, reads *pgkit.Reads) *Deliveries {
	return &Deliveries{pool: pool, secrets: sealer{box}, reads: reads}
}

// Add implements app.PlannedDeliveries. A claim runs on the database's clock, which the sweepers
// read.
func (s *Deliveries) Add(ctx context.Context, msg domain.Message, targets []app.DeliveryTarget, claim time.Duration) error {
	deliveryIDs, subIDs := make([]string, len(targets)), make([]string, len(targets))
	createdAt := make([]time.Time, len(targets))
	for i, t := range targets {
		deliveryIDs[i], subIDs[i], createdAt[i] = t.DeliveryID, t.Subscription.ID(), t.CreatedAt
	}
	_, err := pgkit.Q(ctx, s.pool).Exec(ctx, `INSERT INTO deliveries (id, subscription_id, event, payload, status, created_at, claimed_until)
		SELECT d, s, $4, $5, 'pending', c, CASE WHEN $6::float8 > 0 THEN now() + make_interval(secs => $6::float8) END
		FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS r(d, s, c)`,
		deliveryIDs, subIDs, createdAt, msg.Event, msg.Body, claim.Seconds())
	return wrap("plan deliveries", err)
}

// Target implements app.DeliveryStore.
func (s *Deliveries) Target(ctx context.Context, deliveryID string) (app.DeliveryTarget, error) {
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
	secret, err := s.secrets.open(subID, stored)
	if err != nil {
		return app.DeliveryTarget{}, err
	}
	t.Subscription = domain.RehydrateSubscription(subID, accountID, event, hookURL, secret, domain.SubscriptionStatus(st), subCreated, failingSince)
	return t, nil
}

// RecordAll implements app.AttemptStore: the attempt rows and delivery states of the whole
// batch in one statement, with what only some attempts change (a subscription's failure streak,
// its removal or disabling) in the same round trip.
func (s *Deliveries) RecordAll(ctx context.Context, records []app.AttemptRecord) error {
	var attempts attemptRows
	for _, r := range records {
		if r.Outcome != domain.Gone {
			attempts.add(r)
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
	if tx, ok := pgkit.TxFrom(ctx); ok {
		return wrap("record attempts", tx.SendBatch(ctx, batch).Close())
	}
	// One round trip: a batch sent outside a transaction is one implicit transaction.
	return wrap("record attempts", s.pool.SendBatch(ctx, batch).Close())
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
func (s *Deliveries) Prune(ctx context.Context, before time.Time, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM deliveries WHERE id IN (
		SELECT id FROM deliveries WHERE status <> 'pending' AND created_at < $1 LIMIT $2)`, before, limit)
	if err != nil {
		return 0, wrap("prune deliveries", err)
	}
	return int(tag.RowsAffected()), nil
}

// EndClaims implements app.Claims.
func (s *Deliveries) EndClaims(ctx context.Context, deliveryIDs []string) ([]app.DeliveryJob, error) {
	return s.endClaims(ctx, `d.id = ANY($1::text[])`, deliveryIDs)
}

// EndExpiredClaims implements app.Claims.
func (s *Deliveries) EndExpiredClaims(ctx context.Context, limit int) ([]app.DeliveryJob, error) {
	return s.endClaims(ctx, `d.id IN (SELECT id FROM deliveries WHERE claimed_until < now() AND status = 'pending'
		ORDER BY claimed_until LIMIT $1 FOR UPDATE SKIP LOCKED)`, limit)
}

func (s *Deliveries) endClaims(ctx context.Context, match string, arg any) ([]app.DeliveryJob, error) {
	rows, err := pgkit.Q(ctx, s.pool).Query(ctx, `UPDATE deliveries d SET claimed_until = NULL FROM subscriptions s
		WHERE `+match+` AND d.claimed_until IS NOT NULL AND d.status = 'pending' AND s.id = d.subscription_id
		RETURNING d.id, s.account_id, s.id`, arg)
	if err != nil {
		return nil, wrap("end claims", err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (app.DeliveryJob, error) {
		var j app.DeliveryJob
		return j, r.Scan(&j.DeliveryID, &j.AccountID, &j.SubscriptionID)
	})
	return jobs, wrap("end claims", err)
}

// Attempts implements app.DeliveryLog.
func (s *Deliveries) Attempts(ctx context.Context, accountID, subscriptionID string, limit int) ([]app.Attempt, error) {
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

// Reopen implements app.DeliveryLog.
func (s *Deliveries) Reopen(ctx context.Context, accountID, deliveryID string) (app.DeliveryJob, error) {
	db := pgkit.Q(ctx, s.pool)
	var status, subscriptionID string
	err := db.QueryRow(ctx, `SELECT d.status, d.subscription_id FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id
		WHERE d.id = $1 AND s.account_id = $2 AND s.status = 'active' FOR UPDATE OF d`, deliveryID, accountID).Scan(&status, &subscriptionID)
	if err != nil {
		return app.DeliveryJob{}, wrap("find delivery", notFound(err))
	}
	if status == "pending" {
		return app.DeliveryJob{}, app.ErrPending
	}
	if _, err := db.Exec(ctx, `UPDATE deliveries SET status = 'pending', created_at = now() WHERE id = $1`, deliveryID); err != nil {
		return app.DeliveryJob{}, wrap("reopen delivery", err)
	}
	return app.DeliveryJob{DeliveryID: deliveryID, AccountID: accountID, SubscriptionID: subscriptionID}, nil
}
