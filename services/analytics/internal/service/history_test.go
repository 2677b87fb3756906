package service_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/analytics/internal/app"
)

func TestHealthHistoryOfTheCallerAndOfItsClients(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	now := s.clock.Now()
	s.project(t, func(ctx context.Context) error {
		if err := s.svc.Accounts.Created(ctx, app.NewAccount{AccountID: "acc_hboss", Email: "boss@h.test", Plan: "growth", CreatedAt: now.AddDate(0, -3, 0)}); err != nil {
			return err
		}
		return s.svc.Accounts.Created(ctx, app.NewAccount{AccountID: "acc_hclient", OwnerID: "acc_hboss",
			Email: "client@h.test", BusinessName: "Client", Plan: "free", CreatedAt: now.AddDate(0, -3, 0)})
	})
	// A score 40 days ago (before the window), then the client logs in daily and rises.
	s.clock.Advance(-40 * 24 * time.Hour)
	require.NoError(t, s.svc.App.Recompute.Handle(context.Background(), []string{"acc_hclient", "acc_hboss"}))
	s.clock.Advance(40 * 24 * time.Hour)
	s.project(t, func(ctx context.Context) error {
		for d := range 10 {
			if err := s.svc.Accounts.LoggedIn(ctx, "acc_hclient", "", now.AddDate(0, 0, -d)); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, s.svc.App.Recompute.Handle(context.Background(), []string{"acc_hclient"}))

	boss := s.token(t, "acc_hboss", "growth")
	r := s.do(t, "GET", "/api/health-score/history?days=30&clientId=acc_hclient", bulkIP, boss, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "acc_hclient", r.body["accountId"])
	// The score in effect when the window opens, then the changes inside it: the recompute above,
	// and any the service's own dirty-account worker made meanwhile.
	points := r.body["points"].([]any)
	require.GreaterOrEqual(t, len(points), 2, "the score in effect when the window opens, then the change inside it")
	first, last := points[0].(map[string]any), points[len(points)-1].(map[string]any)
	require.Less(t, first["at"], now.AddDate(0, 0, -30).Format("2006-01-02T15:04:05.000Z"))
	require.Equal(t, now.Format("2006-01-02T15:04:05.000Z"), last["at"])
	require.Greater(t, last["score"], first["score"])
	require.Len(t, last["signals"], 10)

	r = s.do(t, "GET", "/api/health-score/history", bulkIP, boss, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "acc_hboss", r.body["accountId"])
	require.Equal(t, 30.0, r.body["days"])
	require.NotEmpty(t, r.body["points"], "at least the score in effect when the window opens")

	// Another owner's view of the client, and an id that does not exist, are the same 404.
	other := s.token(t, "acc_hother", "growth")
	for _, tok := range []string{other, boss} {
		id := "acc_hclient"
		if tok == boss {
			id = "acc_nobody"
		}
		r = s.do(t, "GET", "/api/health-score/history?clientId="+id, bulkIP, tok, "")
		require.Equal(t, http.StatusNotFound, r.status, r.body)
		require.Equal(t, "client_not_found", r.body["code"])
	}
	for _, bad := range []string{"0", "91", "x"} {
		r = s.do(t, "GET", "/api/health-score/history?days="+bad, bulkIP, boss, "")
		require.Equal(t, http.StatusBadRequest, r.status, bad)
		require.Equal(t, "days", r.body["field"])
	}
}
