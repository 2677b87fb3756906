package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Subscriptions keeps REST hook subscriptions, their signing secrets sealed by box (secrets.go).
type Subscriptions struct {
	pool    *pgxpool.Pool
	secrets sealer
	reads   *pgkit.Reads // told of an account's writes, for the delivery log's reads (Deliveries)
}

// NewSubscriptions returns the subscription store; reads is the one the delivery log reads
// through (pgkit.PrimaryReads without a replica).
func NewSubscriptions(pool *pgxpool.Pool, box *sealbox.Box, reads *pgkit.Reads) *Subscriptions {
	return &Subscriptions{pool: pool, secrets: sealer{box}, reads: reads}
}

// subscriptionLockSpace is the first key of the per-account subscription locks, so they share no
// key with another service's advisory locks in the same database.
const subscriptionLockSpace = 0x686f6f6b // "hook"

// AddSubscription implements app.SubscriptionStore. decide reads the account's subscriptions
// under a transaction-scoped advisory lock of the account that every other AddSubscription of
// the account waits for, so the limits it checks hold however many subscribe at once. The lock
// is advisory, not the account's row, because subscribe does not wait for the account projection.
func (s *Subscriptions) AddSubscription(ctx context.Context, accountID string,
	decide func(existing []domain.Subscription) (domain.Subscription, bool, error)) (sub domain.Subscription, created bool, err error) {
	err = pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, subscriptionLockSpace, accountID); err != nil {
			return wrap("lock subscriptions", err)
		}
		ctx := pgkit.WithTx(ctx, tx)
		existing, err := s.ListSubscriptions(ctx, accountID)
		if err != nil {
			return err
		}
		if sub, created, err = decide(existing); err != nil || !created {
			return err
		}
		sub, created, err = s.CreateSubscription(ctx, sub)
		return err
	})
	return sub, created, err
}

// CreateSubscription stores sub unless the account already has a subscription to the same event
// and URL: then it returns that one and created is false. It checks no limit (AddSubscription does).
func (s *Subscriptions) CreateSubscription(ctx context.Context, sub domain.Subscription) (domain.Subscription, bool, error) {
	s.reads.Wrote(ctx, sub.AccountID())
	sealed, err := s.secrets.seal(sub.ID(), sub.Secret())
	if err != nil {
		return domain.Subscription{}, false, err
	}
	tag, err := pgkit.Q(ctx, s.pool).Exec(ctx, `INSERT INTO subscriptions (`+subscriptionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (account_id, event, hook_url) DO NOTHING`,
		sub.ID(), sub.AccountID(), sub.Event(), sub.HookURL(), sealed, sub.Status(), sub.CreatedAt(), sub.FailingSince())
	if err != nil {
		return domain.Subscription{}, false, wrap("create subscription", err)
	}
	if tag.RowsAffected() == 1 {
		return sub, true, nil
	}
	existing, err := s.secrets.scanSubscription(pgkit.Q(ctx, s.pool).QueryRow(ctx, `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE account_id = $1 AND event = $2 AND hook_url = $3`, sub.AccountID(), sub.Event(), sub.HookURL()))
	return existing, false, wrap("find subscription", err)
}

// ListSubscriptions implements app.SubscriptionStore.
func (s *Subscriptions) ListSubscriptions(ctx context.Context, accountID string) ([]domain.Subscription, error) {
	return s.query(ctx, "list subscriptions", `SELECT `+subscriptionColumns+` FROM subscriptions WHERE account_id = $1 ORDER BY id`, accountID)
}

// Subscribers implements app.Subscribers.
func (s *Subscriptions) Subscribers(ctx context.Context, accountID, event string) ([]domain.Subscription, error) {
	return s.query(ctx, "find subscribers", `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE account_id = $1 AND event = $2 AND status = 'active'`, accountID, event)
}

func (s *Subscriptions) query(ctx context.Context, what, sql string, args ...any) ([]domain.Subscription, error) {
	rows, err := pgkit.Q(ctx, s.pool).Query(ctx, sql, args...)
	if err != nil {
		return nil, wrap(what, err)
	}
	subs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Subscription, error) { return s.secrets.scanSubscription(r) })
	return subs, wrap(what, err)
}

// DeleteSubscription implements app.SubscriptionStore; deliveries and attempts go with it.
//
// A delete that PostgreSQL aborts to break a deadlock runs again: it locks the subscription and
// then, by cascade, its deliveries, while recording an attempt locks a delivery and then its
// subscription (the failure streak), so the two can wait on each other.
func (s *Subscriptions) DeleteSubscription(ctx context.Context, accountID, id string) error {
	for attempt := 1; ; attempt++ {
		tag, err := s.pool.Exec(ctx, `DELETE FROM subscriptions WHERE id = $1 AND account_id = $2`, id, accountID)
		switch {
		case pgkit.Retryable(err) && attempt < 3:
			continue
		case err == nil && tag.RowsAffected() == 0:
			return app.ErrNotFound
		}
		return wrap("delete subscription", err)
	}
}

// CanonicalizeHookURLs rewrites the hook URLs stored before subscribe kept them in canonical form
// (domain.CanonicalHookURL) and folds the subscriptions that turn out to be spellings of one
// target into the oldest active one, as migration 003 folded identical spellings; the others'
// queued deliveries go with them. A stored URL that no longer validates stays as written. It
// reports how many subscriptions it rewrote or removed.
func (s *Subscriptions) CanonicalizeHookURLs(ctx context.Context) (int, error) {
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
