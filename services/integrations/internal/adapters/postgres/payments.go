package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Payments deduplicates the processor's events and links its customers to accounts.
type Payments struct {
	pool *pgxpool.Pool
}

func NewPayments(pool *pgxpool.Pool) *Payments { return &Payments{pool: pool} }

// ClaimPayment implements app.PaymentStore.
func (s *Payments) ClaimPayment(ctx context.Context, p domain.Payment) (bool, error) {
	tag, err := pgkit.Q(ctx, s.pool).Exec(ctx, `INSERT INTO payment_events (id, type) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, p.EventID, p.Type)
	if err != nil {
		return false, wrap("claim payment event", err)
	}
	return tag.RowsAffected() == 1, nil
}

// MatchAccount implements app.PaymentStore: the customer id linked at checkout first, then the
// checkout's client reference (an account id), then the email (owners before clients).
func (s *Payments) MatchAccount(ctx context.Context, p domain.Payment) (app.PaymentMatch, error) {
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
func (s *Payments) RememberCustomer(ctx context.Context, customerID, accountID string) error {
	_, err := pgkit.Q(ctx, s.pool).Exec(ctx, `INSERT INTO payment_customers (customer_id, account_id) VALUES ($1, $2)
		ON CONFLICT (customer_id) DO UPDATE SET account_id = EXCLUDED.account_id`, customerID, accountID)
	return wrap("remember customer", err)
}

// SetPaymentAccount implements app.PaymentStore.
func (s *Payments) SetPaymentAccount(ctx context.Context, eventID, accountID string) error {
	_, err := pgkit.Q(ctx, s.pool).Exec(ctx, `UPDATE payment_events SET account_id = $2 WHERE id = $1`, eventID, accountID)
	return wrap("note payment account", err)
}

// Prune implements app.Pruner: the ids of processed events, kept to deduplicate the processor's
// retries.
func (s *Payments) Prune(ctx context.Context, before time.Time, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM payment_events WHERE id IN (
		SELECT id FROM payment_events WHERE received_at < $1 LIMIT $2)`, before, limit)
	if err != nil {
		return 0, wrap("prune payment events", err)
	}
	return int(tag.RowsAffected()), nil
}

var (
	_ interface {
		app.SecretStore
		app.AccountProjection
	} = (*Accounts)(nil)
	_ interface {
		app.InboxStore
		app.KnownLeads
	} = (*Inbox)(nil)
	_ interface {
		app.SubscriptionStore
		app.Subscribers
	} = (*Subscriptions)(nil)
	_ interface {
		app.PlannedDeliveries
		app.DeliveryStore
		app.DeliveryLog
		app.Claims
		app.Pruner
	} = (*Deliveries)(nil)
	_ interface {
		app.PaymentStore
		app.Pruner
	} = (*Payments)(nil)
)
