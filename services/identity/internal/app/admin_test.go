package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/identity/internal/app"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

func TestOperatorsNameAccountsByIDOrOwnerEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, false)
	owner, err := f.repo.OwnerByEmail(ctx, "a@example.com")
	require.NoError(t, err)
	require.NoError(t, (&app.CreateClient{Accounts: f.repo, Outbox: f.repo, Now: clock}).Handle(ctx,
		app.CreateClientCommand{OwnerID: owner.ID(), Email: "client@example.com", BusinessName: "Client Co"}))

	find := &app.FindAccount{Accounts: f.repo}
	byEmail, err := find.Handle(ctx, " A@Example.com")
	require.NoError(t, err)
	require.Equal(t, owner.ID(), byEmail.ID())
	byID, err := find.Handle(ctx, owner.ID())
	require.NoError(t, err)
	require.Equal(t, "a@example.com", byID.Email())
	_, err = find.Handle(ctx, "client@example.com")
	require.ErrorIs(t, err, account.ErrNotFound, "an email names an owner, never a client")
	_, err = find.Handle(ctx, "not an email")
	require.Equal(t, apperr.KindInvalid, apperr.KindOf(err))

	list := &app.ListAccounts{Accounts: f.repo}
	owners, err := list.Handle(ctx, "")
	require.NoError(t, err)
	require.Len(t, owners, 1)
	require.Equal(t, owner.ID(), owners[0].ID())
	clients, err := list.Handle(ctx, "a@example.com")
	require.NoError(t, err)
	require.Len(t, clients, 1)
	require.Equal(t, "client@example.com", clients[0].Email())
	_, err = list.Handle(ctx, "nobody@example.com")
	require.ErrorIs(t, err, account.ErrNotFound)
}
