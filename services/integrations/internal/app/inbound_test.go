package app_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

type fakeSecrets struct{ hashes map[string][]byte } // account -> hash

func (f fakeSecrets) SecretOwner(_ context.Context, hash []byte) (string, []byte, error) {
	for account, h := range f.hashes {
		if string(h) == string(hash) {
			return account, h, nil
		}
	}
	return "", nil, app.ErrNotFound
}

func (f fakeSecrets) SetSecret(_ context.Context, account string, hash []byte) error {
	if _, ok := f.hashes[account]; !ok {
		return app.ErrNotFound
	}
	f.hashes[account] = hash
	return nil
}

type fakeInbox struct {
	rec   app.InboundRecord
	since time.Time
	pub   app.Publication
}

func (f *fakeInbox) Accept(_ context.Context, rec app.InboundRecord, since time.Time, pub app.Publication) (app.InboundRecord, bool, error) {
	f.rec, f.since, f.pub = rec, since, pub
	return rec, true, nil
}

func raw(t *testing.T, js string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	return m
}

func TestReceiveInbound(t *testing.T) {
	t.Parallel()
	secret := string(domain.NewAccountSecret())
	inbox := &fakeInbox{}
	h := app.ReceiveInbound{
		Secrets: fakeSecrets{hashes: map[string][]byte{"acc_1": domain.HashSecret(secret)}},
		Inbox:   inbox, Now: func() time.Time { return now },
	}
	body := raw(t, `{"event":"new_lead","name":"Jane","email":"jane@example.com"}`)

	for name, presented := range map[string]string{"missing": "", "wrong": secret + "x", "blank": "   "} {
		_, err := h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: presented, Body: body})
		require.Equal(t, apperr.KindUnauthenticated, apperr.KindOf(err), name)
	}

	// The secret is checked before the body, so a stranger learns nothing about validation.
	_, err := h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: "nope", Body: raw(t, `{"event":"x"}`)})
	require.Equal(t, apperr.KindUnauthenticated, apperr.KindOf(err))

	res, err := h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: secret, IdempotencyKey: "k1", Body: body})
	require.NoError(t, err)
	require.True(t, ids.Valid("svc", res.ID))
	require.False(t, res.Duplicate)
	require.Equal(t, "acc_1", inbox.rec.AccountID)
	require.Equal(t, "k1", inbox.rec.IdempotencyKey)
	require.Equal(t, now.Add(-24*time.Hour), inbox.since)
	require.Equal(t, app.Publication{Type: "inbound.new_lead", AccountID: "acc_1",
		Data: map[string]string{"inboundId": res.ID, "name": "Jane", "email": "jane@example.com"}}, inbox.pub)

	reordered := raw(t, `{"email":"jane@example.com","name":" Jane ","event":"new_lead"}`)
	first := inbox.rec.BodyHash
	_, err = h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: secret, Body: reordered})
	require.NoError(t, err)
	require.Equal(t, first, inbox.rec.BodyHash, "key order and surrounding spaces do not make a new event")
}

func TestRotateSecretIsForOwnersOnly(t *testing.T) {
	t.Parallel()
	secrets := fakeSecrets{hashes: map[string][]byte{"acc_owner": nil}}
	h := app.RotateSecret{Secrets: secrets}
	s, err := h.Handle(context.Background(), "acc_owner")
	require.NoError(t, err)
	require.Equal(t, domain.HashSecret(string(s)), secrets.hashes["acc_owner"])
	_, err = h.Handle(context.Background(), "acc_client")
	require.Equal(t, apperr.KindForbidden, apperr.KindOf(err))
}
