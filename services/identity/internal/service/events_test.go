package service_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// publish puts an event on the stream the way another service's relay would.
func (s *stack) publish(t *testing.T, typ, accountID string, data any) {
	t.Helper()
	env, err := events.New(context.Background(), typ, accountID, data)
	require.NoError(t, err)
	raw, err := json.Marshal(env)
	require.NoError(t, err)
	cfg := s.svc.Runtime.Config.Consumer
	for range 2 { // a duplicated delivery must change nothing
		require.NoError(t, s.svc.Runtime.Redis.XAdd(context.Background(), &redis.XAddArgs{
			Stream: cfg.StreamPrefix + ":" + typ, Values: map[string]any{"envelope": string(raw)},
		}).Err())
	}
}

func TestInboundNewClientCreatesOneClientOfTheOwner(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "owner@example.com", "growth")
	o, err := s.svc.Accounts.OwnerByEmail(context.Background(), "owner@example.com")
	require.NoError(t, err)

	s.publish(t, "inbound.new_client", o.ID(), map[string]string{
		"inboundId": "svc_1", "businessName": "Corner Cafe", "email": "Cafe@Example.com", "ownerName": "Dana", "plan": "growth"})

	var clients []*account.Account
	require.Eventually(t, func() bool {
		clients, err = s.svc.Accounts.List(context.Background(), account.ListFilter{OwnerID: o.ID()})
		return err == nil && len(clients) == 1
	}, 10*time.Second, 50*time.Millisecond)
	require.Equal(t, "cafe@example.com", clients[0].Email())
	require.Equal(t, "Corner Cafe", clients[0].BusinessName())
	require.Equal(t, account.RoleClient, clients[0].Role())

	// both deliveries are consumed; still exactly one client
	time.Sleep(300 * time.Millisecond)
	clients, err = s.svc.Accounts.List(context.Background(), account.ListFilter{OwnerID: o.ID()})
	require.NoError(t, err)
	require.Len(t, clients, 1)
}

func TestPaymentEventsMoveThePlan(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "owner@example.com", "free")
	o, err := s.svc.Accounts.OwnerByEmail(context.Background(), "owner@example.com")
	require.NoError(t, err)

	planOf := func() account.Plan {
		a, err := s.svc.Accounts.ByID(context.Background(), o.ID())
		require.NoError(t, err)
		return a.Plan()
	}
	s.publish(t, "payment.checkout.session.completed", o.ID(), map[string]any{
		"type": "checkout.session.completed", "accountId": o.ID(), "plan": "growth"})
	require.Eventually(t, func() bool { return planOf() == account.PlanGrowth }, 10*time.Second, 50*time.Millisecond)

	s.publish(t, "payment.customer.subscription.deleted", o.ID(), map[string]any{
		"type": "customer.subscription.deleted", "accountId": o.ID()})
	require.Eventually(t, func() bool { return planOf() == account.PlanFree }, 10*time.Second, 50*time.Millisecond)
}
