package postgres

import (
	"context"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// ClaimPayment implements app.PaymentStore.
func (s *Store) ClaimPayment(ctx context.Context, p domain.Payment) (bool, error) {
	tag, err := pgkit.Q(ctx, s.pool).Exec(ctx, `INSERT INTO payment_events (id, type) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, p.EventID, p.Type)
	if err != nil {
		return false, wrap("claim payment event", err)
	}
	return tag.RowsAffected() == 1, nil
}

// MatchAccount implements app.PaymentStore: the customer id linked at checkout first, then the
// checkout's client reference (an account id), then the email (owners before clients).
func (s *Store) MatchAccount(ctx context.Context, p domain.Payment) (app.PaymentMatch, error) {
	var (
		m   app.PaymentMatch
		how int
	)
	err := pgkit.Q(ctx, s.pool).QueryRow(ctx, `SELECT a.id, a.email, m.how FROM (
			SELECT account_id, $4::int AS how, 0 AS rank FROM payment_customers WHERE customer_id = $1 AND $1 <> ''
			UNION ALL
			SELECT id, $5, 1 FROM accounts WHERE id = $2 AND $2 <> ''
			UNION ALL
			SELECT id, $6, CASE role WHEN 'owner' THEN 2 ELSE 3 END FROM accounts WHERE lower(email) = lower($3) AND $3 <> ''
		) m JOIN accounts a ON a.id = m.account_id ORDER BY m.rank LIMIT 1`,
		p.CustomerID, p.ClientReferenceID, p.CustomerEmail, int(domain.ByCustomer), int(domain.ByReference), int(domain.ByEmail)).
		Scan(&m.AccountID, &m.Email, &how)
	m.By = domain.MatchedBy(how)
	return m, wrap("match payment account", notFound(err))
}

// RememberCustomer implements app.PaymentStore.
func (s *Store) RememberCustomer(ctx context.Context, customerID, accountID string) error {
	_, err := pgkit.Q(ctx, s.pool).Exec(ctx, `INSERT INTO payment_customers (customer_id, account_id) VALUES ($1, $2)
		ON CONFLICT (customer_id) DO UPDATE SET account_id = EXCLUDED.account_id`, customerID, accountID)
	return wrap("remember customer", err)
}

// SetPaymentAccount implements app.PaymentStore.
func (s *Store) SetPaymentAccount(ctx context.Context, eventID, accountID string) error {
	_, err := pgkit.Q(ctx, s.pool).Exec(ctx, `UPDATE payment_events SET account_id = $2 WHERE id = $1`, eventID, accountID)
	return wrap("note payment account", err)
}

var _ interface {
	app.SecretStore
	app.InboxStore
	app.AccountProjection
	app.SubscriptionStore
	app.Planner
	app.DeliveryStore
	app.PaymentStore
} = (*Store)(nil)
