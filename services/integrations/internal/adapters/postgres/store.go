// Package postgres implements the integrations stores on the service's own schema, one per
// aggregate: Accounts (the account projection and inbound secrets), Inbox (inbound records and
// the leads known from them), Subscriptions, Deliveries (deliveries, their attempts and dispatch
// claims) and Payments. Each joins the transaction its ctx carries.
package postgres

import (
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return app.ErrNotFound
	}
	return err
}

func wrap(what string, err error) error {
	if err == nil || errors.Is(err, app.ErrNotFound) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

const subscriptionColumns = `id, account_id, event, hook_url, secret, status, created_at, failing_since`

// scanSubscription reads subscriptionColumns, the signing secret opened.
func (s sealer) scanSubscription(row pgx.Row) (domain.Subscription, error) {
	var (
		id, accountID, event, hookURL, stored, status string
		createdAt                                     time.Time
		failingSince                                  *time.Time
	)
	if err := row.Scan(&id, &accountID, &event, &hookURL, &stored, &status, &createdAt, &failingSince); err != nil {
		return domain.Subscription{}, err
	}
	secret, err := s.open(id, stored)
	if err != nil {
		return domain.Subscription{}, err
	}
	return domain.RehydrateSubscription(id, accountID, event, hookURL, secret, domain.SubscriptionStatus(status), createdAt, failingSince), nil
}
