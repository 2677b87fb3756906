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
	"github.com/bizassist/bizassist/services/identity/internal/service"
)

// publish puts an event on the stream the way another service's relay would, twice, as a relay
// that crashed after XADD does (a duplicated delivery must change nothing). It returns the stream
// entry of the second copy.
func (s *stack) publish(t *testing.T, typ, accountID string, data any) string {
	t.Helper()
	env, err := events.New(context.Background(), typ, accountID, data)
	require.NoError(t, err)
	raw, err := json.Marshal(env)
	require.NoError(t, err)
	var entry string
	for range 2 {
		entry, err = s.svc.Runtime.Redis.XAdd(context.Background(), &redis.XAddArgs{
			Stream: s.stream(typ), Values: map[string]any{"envelope": string(raw)},
		}).Result()
		require.NoError(t, err)
	}
	return entry
}

func (s *stack) stream(typ string) string {
	return s.svc.Runtime.Config.Consumer.StreamPrefix + ":" + typ
}

// waitConsumed waits until identity's consumer group has read typ's stream up to entry and
// acknowledged all of it: every delivery, duplicates included, was handled or recognised and
// committed. A delivery whose handler fails stays pending, and one that failed too often is
// dead-lettered, which the wait refuses too.
func (s *stack) waitConsumed(t *testing.T, typ, entry string) {
	t.Helper()
	rdb, ctx := s.svc.Runtime.Redis, context.Background()
	require.Eventually(t, func() bool {
		groups, err := rdb.XInfoGroups(ctx, s.stream(typ)).Result()
		if err != nil {
			return false
		}
		for _, g := range groups {
			if g.Name == service.Name {
				return g.LastDeliveredID == entry && g.Pending == 0
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond, "identity acknowledges every delivery of %s", typ)
	dead, err := rdb.XLen(ctx, s.stream("deadletter:"+service.Name)).Result()
	require.NoError(t, err)
	require.Zero(t, dead, "no delivery was dead-lettered")
}

func TestInboundNewClientCreatesOneClientOfTheOwner(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	o := s.createOwner(t, "owner@example.com", "growth")

	entry := s.publish(t, "inbound.new_client", o.ID(), map[string]string{
		"inboundId": "svc_1", "businessName": "Corner Cafe", "email": "Cafe@Example.com", "ownerName": "Dana", "plan": "growth"})

	s.waitConsumed(t, "inbound.new_client", entry) // both deliveries, the duplicate too
	clients, err := s.svc.Accounts.List(context.Background(), account.ListFilter{OwnerID: o.ID()})
	require.NoError(t, err)
	require.Len(t, clients, 1, "the duplicate delivery made no second client")
	require.Equal(t, "cafe@example.com", clients[0].Email())
	require.Equal(t, "Corner Cafe", clients[0].BusinessName())
	require.Equal(t, account.RoleClient, clients[0].Role())
}

func TestPaymentEventsMoveThePlan(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	o := s.createOwner(t, "owner@example.com", "free")

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
