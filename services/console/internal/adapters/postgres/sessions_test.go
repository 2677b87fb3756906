package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/clocktest"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/console/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/domain/session"
	"github.com/bizassist/bizassist/services/console/migrations"
)

func TestSessionsRoundTripSealedAndEndOnDeleteAndExpiry(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "console", migrations.Source)
	clock := clocktest.New(time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC))
	store := postgres.NewSessions(pool, clock.Now)
	ctx := context.Background()

	secret := session.NewSecret()
	sess := session.Session{Token: "eyJ.token.sig", Email: "owner@example.com", Plan: "growth", ExpiresAt: clock.Now().Add(time.Hour)}
	require.NoError(t, store.Create(ctx, secret, sess))

	got, err := store.Get(ctx, secret)
	require.NoError(t, err)
	require.Equal(t, sess.Token, got.Token)
	require.Equal(t, "owner@example.com", got.Email)
	require.Empty(t, got.Chat)

	// The row alone opens nothing: no token in clear, and another secret finds no session.
	var sealed []byte
	require.NoError(t, pool.QueryRow(ctx, `SELECT sealed_token FROM sessions`).Scan(&sealed))
	require.NotContains(t, string(sealed), sess.Token)
	_, err = store.Get(ctx, session.NewSecret())
	require.ErrorIs(t, err, app.ErrNoSession)

	got.AddTurn("chat_1", session.Turn{Message: "How am I doing?", Reply: "Healthy."})
	require.NoError(t, store.SaveChat(ctx, secret, got))
	again, err := store.Get(ctx, secret)
	require.NoError(t, err)
	require.Equal(t, "chat_1", again.ChatSession)
	require.Equal(t, []session.Turn{{Message: "How am I doing?", Reply: "Healthy."}}, again.Chat)

	require.NoError(t, store.Delete(ctx, secret))
	_, err = store.Get(ctx, secret)
	require.ErrorIs(t, err, app.ErrNoSession, "sign-out ends the session server-side")
	require.NoError(t, store.Delete(ctx, secret), "ending an ended session is not an error")

	short := session.NewSecret()
	require.NoError(t, store.Create(ctx, short, session.Session{Token: "t2", Email: "c@example.com", Plan: "free",
		ExpiresAt: clock.Now().Add(time.Minute)}))
	clock.Advance(time.Minute)
	_, err = store.Get(ctx, short)
	require.ErrorIs(t, err, app.ErrNoSession, "expired at its expiry")
	n, err := store.Prune(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}
