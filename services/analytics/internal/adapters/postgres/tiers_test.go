package postgres

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/analytics/migrations"
)

// TestTierSamplerCountsScoredClients: clients are counted per tier, every tier is set (an empty
// one reads 0), and owners and unscored clients are left out.
func TestTierSamplerCountsScoredClients(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t, "analytics", migrations.Source, events.Migrations)
	_, err := pool.Exec(ctx, `
		INSERT INTO accounts (account_id, owner_id, created_at) VALUES
			('acc_owner', NULL, now()),
			('acc_c1', 'acc_owner', now()), ('acc_c2', 'acc_owner', now()),
			('acc_c3', 'acc_owner', now()), ('acc_c4', 'acc_owner', now()),
			('acc_unscored', 'acc_owner', now());
		INSERT INTO health_current (account_id, score, tier, churn, signals, computed_at) VALUES
			('acc_owner', 10, 'critical', 90, '{}', now()),
			('acc_c1', 85, 'healthy', 5, '{}', now()),
			('acc_c2', 80, 'healthy', 60, '{}', now()),
			('acc_c3', 20, 'critical', 95, '{}', now()),
			('acc_c4', 25, 'critical', 59, '{}', now());`)
	require.NoError(t, err)

	require.NoError(t, TierSampler{Pool: pool}.Sample(ctx))
	require.Equal(t, 2.0, testutil.ToFloat64(clientsByTier.WithLabelValues("healthy")))
	require.Equal(t, 0.0, testutil.ToFloat64(clientsByTier.WithLabelValues("at_risk")))
	require.Equal(t, 2.0, testutil.ToFloat64(clientsByTier.WithLabelValues("critical")))
	require.Equal(t, 2.0, testutil.ToFloat64(churnAtRisk), "churn >= 60: acc_c2 and acc_c3")

}
