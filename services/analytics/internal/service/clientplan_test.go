package service_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/analytics/internal/app"
)

// TestAClientsPlanIsAtMostItsOwners: a client projected on full_stack under a growth owner had
// unlimited chat, and kept it after the owner's subscription was deleted. The projection now
// answers min(client plan, owner plan), following the owner's plan changes at once.
func TestAClientsPlanIsAtMostItsOwners(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	created := time.Now().Add(-time.Hour)
	s.project(t, func(ctx context.Context) error {
		if err := s.svc.Accounts.Created(ctx, app.NewAccount{AccountID: "acc_owner7", Email: "o@x.test", Plan: "growth", CreatedAt: created}); err != nil {
			return err
		}
		return s.svc.Accounts.Created(ctx, app.NewAccount{AccountID: "acc_client7", OwnerID: "acc_owner7", Email: "c@x.test",
			Plan: "full_stack", CreatedAt: created})
	})
	client := s.token(t, "acc_client7", "full_stack")
	chat := func() any {
		r := s.do(t, "GET", "/api/pql-check?feature=chat", bulkIP, client, "")
		require.Equal(t, http.StatusOK, r.status, r.body)
		return r.body["features"].(map[string]any)["chat"]
	}
	require.Equal(t, map[string]any{"used": 0.0, "limit": 1000.0, "pct": 0.0, "unlimited": false}, chat(),
		"a client of a growth owner has growth's allowance at most")

	s.project(t, func(ctx context.Context) error {
		return s.svc.Accounts.PlanChanged(ctx, "acc_owner7", "free", time.Now())
	})
	require.Equal(t, map[string]any{"used": 0.0, "limit": 50.0, "pct": 0.0, "unlimited": false}, chat(),
		"the owner's cancellation reaches the client at once, before any event about the client")
	r := s.do(t, "GET", "/api/churn-predict", bulkIP, client, "")
	require.Equal(t, http.StatusForbidden, r.status, "churn prediction follows the effective plan too: %v", r.body)
}
