package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// A processor event is claimed once; a customer linked to an account matches before an email;
// processed ids older than the retention are pruned.
func TestPaymentsAreClaimedOnceMatchedAndPruned(t *testing.T) {
	t.Parallel()
	pool, sqlInt := newDB(t)
	store := postgres.NewPayments(pool)
	ctx := context.Background()
	p := domain.Payment{EventID: "evt_1", Type: "invoice.paid", CustomerID: "cus_1", CustomerEmail: "a@example.com"}
	fresh, err := store.ClaimPayment(ctx, p)
	require.NoError(t, err)
	require.True(t, fresh)
	fresh, err = store.ClaimPayment(ctx, p)
	require.NoError(t, err)
	require.False(t, fresh, "a retry of the same event")

	m, err := store.MatchAccount(ctx, p)
	require.NoError(t, err)
	require.Equal(t, app.PaymentMatch{AccountID: "acc_1", Email: "a@example.com", By: domain.ByEmail}, m)
	require.NoError(t, store.RememberCustomer(ctx, "cus_1", "acc_1"))
	m, err = store.MatchAccount(ctx, domain.Payment{CustomerID: "cus_1", CustomerEmail: "someone@example.com"})
	require.NoError(t, err)
	require.Equal(t, domain.ByCustomer, m.By)
	_, err = store.MatchAccount(ctx, domain.Payment{CustomerEmail: "nobody@example.com"})
	require.ErrorIs(t, err, app.ErrNotFound)
	require.NoError(t, store.SetPaymentAccount(ctx, "evt_1", "acc_1"))
	require.Equal(t, 1, sqlInt(`SELECT count(*) FROM payment_events WHERE account_id = 'acc_1'`))

	_, err = store.ClaimPayment(ctx, domain.Payment{EventID: "evt_2", Type: "invoice.paid"})
	require.NoError(t, err)
	sqlInt(`UPDATE payment_events SET received_at = now() - interval '40 days' WHERE id = 'evt_1'`)
	pruned, err := app.Prune{Stores: []app.Pruner{store}, Retention: 30 * 24 * time.Hour, Now: time.Now}.Handle(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, pruned)
	require.Equal(t, 1, sqlInt(`SELECT count(*) FROM payment_events`))
}
