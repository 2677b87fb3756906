package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// Subscribing twice to one event and URL answers the subscription already there; the
// subscribers of a message are the account's active subscriptions to its event only.
func TestSubscriptionsAreOnePerTargetAndOnlyActiveOnesSubscribe(t *testing.T) {
	t.Parallel()
	f := newDeliveries(t)
	ctx := context.Background()
	first := f.subscribe("acc_1", "https://h.example/a")
	again, err := domain.NewSubscription("acc_1", domain.OutboundNewLead, "https://h.example/a", domain.TargetPolicy{}, first.CreatedAt())
	require.NoError(t, err)
	stored, created, err := f.subs.CreateSubscription(ctx, again)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, first.ID(), stored.ID())
	require.Equal(t, first.Secret(), stored.Secret())

	disabled := f.subscribe("acc_1", "https://h.example/b")
	f.sqlInt(`UPDATE subscriptions SET status = 'disabled' WHERE id = $1`, disabled.ID())
	other := f.subscribe("acc_other", "https://h.example/a")
	health, err := domain.NewSubscription("acc_1", domain.OutboundHealthCritical, "https://h.example/a", domain.TargetPolicy{}, first.CreatedAt())
	require.NoError(t, err)
	_, _, err = f.subs.CreateSubscription(ctx, health)
	require.NoError(t, err)

	subs, err := f.subs.Subscribers(ctx, "acc_1", domain.OutboundNewLead)
	require.NoError(t, err)
	require.Len(t, subs, 1)
	require.Equal(t, first.ID(), subs[0].ID())
	all, err := f.subs.ListSubscriptions(ctx, "acc_1")
	require.NoError(t, err)
	require.Len(t, all, 3, "the list holds disabled ones too")

	require.ErrorIs(t, f.subs.DeleteSubscription(ctx, "acc_1", other.ID()), app.ErrNotFound, "another account's")
	f.add(0, first)
	require.NoError(t, f.subs.DeleteSubscription(ctx, "acc_1", first.ID()))
	require.Zero(t, f.sqlInt(`SELECT count(*) FROM deliveries`), "its deliveries go with it")
	require.ErrorIs(t, f.subs.DeleteSubscription(ctx, "acc_1", first.ID()), app.ErrNotFound)
}
