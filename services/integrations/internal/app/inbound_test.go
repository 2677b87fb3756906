package app_test

import (
	"context"
	"encoding/json"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/internal/domain/domaintest"
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

// fakeInbox accepts every record, or none as duplicates, keeping the leads it made known and
// the events it published.
type fakeInbox struct {
	rec       app.InboundRecord
	since     time.Time
	duplicate bool
	published []contracts.Event
	known     map[string]bool
}

func (f *fakeInbox) Accept(_ context.Context, rec app.InboundRecord, since time.Time, ev contracts.Event) (app.Accepted, error) {
	f.rec, f.since = rec, since
	if f.duplicate {
		return app.Accepted{Stored: rec}, nil
	}
	acc := app.Accepted{Stored: rec, Created: true}
	if rec.LeadID != "" {
		if f.known == nil {
			f.known = map[string]bool{}
		}
		acc.Merged = f.known[rec.AccountID+" "+rec.LeadID]
		f.known[rec.AccountID+" "+rec.LeadID] = true
	}
	f.published = append(f.published, ev)
	return acc, nil
}

// fakeThrottle counts what it is told and refuses with admit or accept when set.
type fakeThrottle struct {
	admit, accept error
	failed        int
	accepted      []string
}

func (f *fakeThrottle) Admit(context.Context, netip.Addr) error { return f.admit }
func (f *fakeThrottle) Failed(context.Context, netip.Addr) error {
	f.failed++
	return nil
}

func (f *fakeThrottle) Accept(_ context.Context, _ netip.Addr, accountID string) error {
	if f.accept != nil {
		return f.accept
	}
	f.accepted = append(f.accepted, accountID)
	return nil
}

func TestReceiveInbound(t *testing.T) {
	t.Parallel()
	secret := string(domain.NewAccountSecret())
	inbox := &fakeInbox{}
	throttle := &fakeThrottle{}
	h := app.ReceiveInbound{
		Secrets: fakeSecrets{hashes: map[string][]byte{"acc_1": domain.HashSecret(secret)}},
		Inbox:   inbox, Throttle: throttle, Now: func() time.Time { return now },
	}
	body := domaintest.Body(t, `{"event":"new_lead","name":"Jane","email":"jane@example.com"}`)

	for name, presented := range map[string]string{"missing": "", "wrong": secret + "x", "blank": "   "} {
		_, err := h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: presented, Body: body})
		require.Equal(t, apperr.KindUnauthenticated, apperr.KindOf(err), name)
	}

	// The secret is checked before the body, so a stranger learns nothing about validation.
	_, err := h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: "nope", Body: domaintest.Body(t, `{"event":"x"}`)})
	require.Equal(t, apperr.KindUnauthenticated, apperr.KindOf(err))
	require.Equal(t, 4, throttle.failed, "each request without a valid secret counts against its address")
	require.Empty(t, throttle.accepted)

	res, err := h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: secret, IdempotencyKey: "k1", Body: body})
	require.NoError(t, err)
	require.Equal(t, leadsevents.LeadID("acc_1", "jane@example.com"), res.ID, "a new_lead is known by its lead's id")
	require.True(t, ids.Valid("svc", inbox.rec.ID))
	require.False(t, res.Duplicate)
	require.False(t, res.Merged)
	require.Equal(t, "acc_1", inbox.rec.AccountID)
	require.Equal(t, "k1", inbox.rec.IdempotencyKey)
	require.Equal(t, now.Add(-24*time.Hour), inbox.since)
	require.Equal(t, leadsevents.LeadID("acc_1", "jane@example.com"), inbox.rec.LeadID, "storing a new_lead makes its lead known")
	require.Equal(t, []contracts.Event{{Type: integrationsevents.InboundNewLead, AccountID: "acc_1",
		Data: integrationsevents.NewLeadData{InboundID: inbox.rec.ID, Name: "Jane", Email: "jane@example.com", Extras: map[string]string{}}}}, inbox.published)

	reordered := domaintest.Body(t, `{"email":"jane@example.com","name":" Jane ","event":"new_lead"}`)
	first := inbox.rec.BodyHash
	res, err = h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: secret, Body: reordered})
	require.NoError(t, err)
	require.Equal(t, first, inbox.rec.BodyHash, "key order and surrounding spaces do not make a new event")
	require.True(t, res.Merged, "the same email again joins the lead it names")

	inbox.duplicate, inbox.published = true, nil
	res, err = h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: secret, Body: body})
	require.NoError(t, err)
	require.True(t, res.Duplicate)
	require.Empty(t, inbox.published, "a duplicate publishes nothing")
	require.Equal(t, []string{"acc_1", "acc_1", "acc_1"}, throttle.accepted, "each event counts against its account")
}

// A spent allowance refuses before anything is stored: an address's failures before the secret
// is even looked up, an account's events before the body is read.
func TestReceiveInboundKeepsToTheThrottle(t *testing.T) {
	t.Parallel()
	secret := string(domain.NewAccountSecret())
	inbox := &fakeInbox{}
	spent := apperr.New(apperr.KindRateLimited, apperr.CodeRateLimited, "rate limit exceeded")
	body := domaintest.Body(t, `{"event":"new_lead","name":"Jane","email":"jane@example.com"}`)
	for name, throttle := range map[string]*fakeThrottle{"address": {admit: spent}, "account": {accept: spent}} {
		h := app.ReceiveInbound{Secrets: fakeSecrets{hashes: map[string][]byte{"acc_1": domain.HashSecret(secret)}},
			Inbox: inbox, Throttle: throttle, Now: func() time.Time { return now }}
		_, err := h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: secret, Body: body})
		require.Equal(t, apperr.KindRateLimited, apperr.KindOf(err), name)
		require.Empty(t, inbox.published, name)
	}
}

// Every field an inbound event may carry reaches its payload, under the name it was sent with.
func TestInboundPayloadsCarryEveryField(t *testing.T) {
	t.Parallel()
	secret := string(domain.NewAccountSecret())
	inbox := &fakeInbox{}
	h := app.ReceiveInbound{Secrets: fakeSecrets{hashes: map[string][]byte{"acc_1": domain.HashSecret(secret)}},
		Inbox: inbox, Throttle: &fakeThrottle{}, Now: func() time.Time { return now }}
	for typ, body := range map[string]string{
		integrationsevents.InboundNewLead: `{"event":"new_lead","name":"Jane","email":"jane@example.com","phone":"+15125550101",
			"source":"form","notes":"call after 5"}`,
		integrationsevents.InboundNewClient: `{"event":"new_client","businessName":"Doe LLC","email":"jane@example.com",
			"ownerName":"Jane","phone":"+15125550101","plan":"growth"}`,
		integrationsevents.InboundContactForm: `{"event":"contact_form","name":"Jane","email":"jane@example.com",
			"phone":"+15125550101","subject":"Quote","message":"Hello"}`,
	} {
		inbox.published = nil
		_, err := h.Handle(context.Background(), app.ReceiveInboundCmd{Secret: secret, Body: domaintest.Body(t, body)})
		require.NoError(t, err, typ)
		require.Len(t, inbox.published, 1, typ)
		if typ != integrationsevents.InboundNewLead {
			require.Empty(t, inbox.rec.LeadID, "only a new_lead names a lead")
		}
		require.Equal(t, typ, inbox.published[0].Type)
		got, err := json.Marshal(inbox.published[0].Data)
		require.NoError(t, err)
		want := domaintest.Body(t, body)
		delete(want, "event")
		want["inboundId"] = json.RawMessage(`"` + inbox.rec.ID + `"`)
		wantJSON, err := json.Marshal(want)
		require.NoError(t, err)
		require.JSONEq(t, string(wantJSON), string(got), typ)
	}
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

type knownLeads map[string]map[string]string // lead id -> fields

func (k knownLeads) KnowLead(_ context.Context, _, leadID string, fields map[string]string) (bool, error) {
	_, known := k[leadID]
	k[leadID] = fields
	return !known, nil
}

// A lead is known once: one written from an inbound new_lead was made known when the inbox
// accepted it, one found by a search from its lead.written.
func TestKnowLeadRecordsOnlyLeadsItHasNotAccepted(t *testing.T) {
	t.Parallel()
	known := knownLeads{}
	h := app.KnowLead{Leads: known}
	require.NoError(t, h.Handle(context.Background(), app.WrittenLead{AccountID: "acc_1", LeadID: "lead_inbound", InboundID: "svc_1",
		Fields: map[string]string{"name": "Ann"}}))
	require.NoError(t, h.Handle(context.Background(), app.WrittenLead{AccountID: "acc_1", LeadID: "lead_search",
		Fields: map[string]string{"name": "Bo", "phone": ""}}))
	require.Equal(t, knownLeads{"lead_search": {"name": "Bo"}}, known)
}
