package app

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents/leadfields"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/phone"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// DuplicateWindow is how long an identical body counts as a repeated delivery when the sender
// gave no idempotency key.
const DuplicateWindow = 24 * time.Hour

// MaxIdempotencyKeyLength bounds the Idempotency-Key / webhook-id header we store.
const MaxIdempotencyKeyLength = 255

// InboundRecord is an accepted inbound event as stored in the inbox.
type InboundRecord struct {
	ID             string
	AccountID      string
	Event          domain.InboundEvent
	Fields         map[string]string
	Extras         map[string]string
	IdempotencyKey string
	BodyHash       []byte
	ReceivedAt     time.Time
	// LeadID is the lead a new_lead names (leadsevents.LeadID), which storing the record makes
	// known (KnownLeads); empty for other events.
	LeadID string
	// LeadFields are the lead's fields as leads will store them (leadfields.Inbound), merged into
	// what is known of the lead; a lead new to the account has LeadDefaults where they say nothing.
	LeadFields, LeadDefaults leadfields.Fields
}

// SecretStore keeps the hashed inbound webhook secrets.
type SecretStore interface {
	// SecretOwner returns the account whose secret hashes to hash, and the stored hash;
	// ErrNotFound when none does.
	SecretOwner(ctx context.Context, hash []byte) (accountID string, stored []byte, err error)
	// SetSecret stores hash as the owner account's secret, replacing any earlier one;
	// ErrNotFound when accountID is not a known owner account.
	SetSecret(ctx context.Context, accountID string, hash []byte) error
}

// InboxStore stores inbound events durably.
type InboxStore interface {
	// Accept stores rec, makes rec.LeadID known (when set) and publishes ev, all in one unit of
	// work, unless the account already has a copy of rec: a record with the same idempotency key
	// or, both without one, the same body hash received after since. Then it writes nothing and
	// returns that copy.
	Accept(ctx context.Context, rec InboundRecord, since time.Time, ev contracts.Event) (Accepted, error)
}

// Accepted is what Accept made of a record.
type Accepted struct {
	Stored  InboundRecord // the record, or the copy stored before it
	Created bool          // the record was stored; false for a copy
	Merged  bool          // stored, and its lead was known already
	// Known is what was known of a merged lead's fields before rec.
	Known map[string]string
}

// KnownLeads is the set of leads known to be on each account's sheet (ids from
// leadsevents.LeadID, so a lead's email identity).
type KnownLeads interface {
	// KnowLead adds the lead, or merges its non-empty fields into what is known of it; false when
	// it was known already. It joins the transaction ctx carries.
	KnowLead(ctx context.Context, accountID, leadID string, fields map[string]string) (bool, error)
}

// ReceiveInboundCmd is one POST /api/ext-webhook.
type ReceiveInboundCmd struct {
	Secret string
	// IdempotencyKey and WebhookID are the headers of those names; the first given is the
	// delivery's key, and each given must be a valid one.
	IdempotencyKey, WebhookID string
	Body                      map[string]json.RawMessage
	// ClientIP is the sender's address, which requests without a valid secret are metered by.
	ClientIP netip.Addr
}

// InboundThrottle meters inbound events: per account once the secret is verified (a sender's
// bursts are its account's, whatever address they come from), and per client address for
// requests whose secret is missing or wrong. Each refusal is a rate_limited error.
type InboundThrottle interface {
	// Admit refuses an address whose failed requests are spent.
	Admit(ctx context.Context, ip netip.Addr) error
	// Failed counts a request of ip without a valid secret.
	Failed(ctx context.Context, ip netip.Addr) error
	// Accept takes one event from the account's allowance.
	Accept(ctx context.Context, ip netip.Addr, accountID string) error
}

// InboundResult says what the event is known by and whether this call created it. ID is the
// lead's id for new_lead (the id the sheet and outbound new_lead carry), else the inbox record's;
// Merged says a new_lead's email was already a lead of the account, which it joins.
type InboundResult struct {
	ID        string
	Event     domain.InboundEvent
	Duplicate bool
	Merged    bool
	Changed   []string // of a merged new_lead: the fields it changes, as leads names them
	Warnings  []FieldWarning
}

// FieldWarning names a field the event was accepted with but that will not be used as given.
type FieldWarning struct{ Field, Message string }

// fieldWarnings says what a sender should know about an accepted record: a phone no country's
// plan reads (with its "country" extra or its address's country, then US) is kept as given, not
// as a number.
func fieldWarnings(rec InboundRecord) []FieldWarning {
	p := rec.Fields["phone"]
	if p == "" {
		return nil
	}
	if _, err := phone.Parse(p, phone.RegionHints(rec.Extras)...); err != nil {
		return []FieldWarning{{Field: "phone", Message: "phone " + err.Error() +
			" (give it with its country code, or a \"country\" field); kept as given"}}
	}
	return nil
}

// ReceiveInbound authenticates an inbound event by its secret, validates it, stores it once and
// publishes inbound.<event> with it.
type ReceiveInbound struct {
	Secrets  SecretStore
	Inbox    InboxStore
	Throttle InboundThrottle
	Now      Clock
}

var errBadSecret = apperr.Unauthenticated("invalid_secret", "X-Ext-Secret is missing or not a valid webhook secret")

func (h ReceiveInbound) Handle(ctx context.Context, cmd ReceiveInboundCmd) (InboundResult, error) {
	if err := h.Throttle.Admit(ctx, cmd.ClientIP); err != nil {
		return InboundResult{}, err
	}
	accountID, err := h.authenticate(ctx, cmd.Secret)
	if errors.Is(err, errBadSecret) {
		_ = h.Throttle.Failed(ctx, cmd.ClientIP) // fails only when ctx ends: the answer is the same
		return InboundResult{}, err
	}
	if err != nil {
		return InboundResult{}, err
	}
	if err := h.Throttle.Accept(ctx, cmd.ClientIP, accountID); err != nil {
		return InboundResult{}, err
	}
	in, err := domain.ParseInbound(cmd.Body)
	if err != nil {
		return InboundResult{}, err
	}
	key, err := deliveryKey(cmd)
	if err != nil {
		return InboundResult{}, err
	}
	now := h.Now().UTC()
	rec := InboundRecord{
		ID: ids.New("svc"), AccountID: accountID, Event: in.Event, Fields: in.Fields, Extras: in.Extras,
		IdempotencyKey: key, BodyHash: bodyHash(in), ReceivedAt: now,
	}
	if rec.Event == domain.InboundNewLead {
		rec.LeadID = leadsevents.LeadID(accountID, rec.Fields["email"])
		rec.LeadFields = leadfields.Inbound(rec.Fields["name"], rec.Fields["phone"], rec.Fields["source"], rec.Fields["notes"], rec.Extras)
		rec.LeadDefaults = leadfields.Fields{"source": leadfields.WebhookSource}
	}
	ev, err := inboundEvent(rec)
	if err != nil {
		return InboundResult{}, err
	}
	acc, err := h.Inbox.Accept(ctx, rec, now.Add(-DuplicateWindow), ev)
	if err != nil {
		return InboundResult{}, fmt.Errorf("accept inbound %s: %w", in.Event, err)
	}
	id := acc.Stored.ID
	if acc.Stored.Event == domain.InboundNewLead {
		id = leadsevents.LeadID(accountID, acc.Stored.Fields["email"])
	}
	res := InboundResult{ID: id, Event: acc.Stored.Event, Duplicate: !acc.Created, Merged: acc.Merged,
		Warnings: fieldWarnings(acc.Stored)}
	if acc.Merged {
		res.Changed = leadfields.Fields(acc.Known).Changes(rec.LeadFields)
	}
	return res, nil
}

func (h ReceiveInbound) authenticate(ctx context.Context, secret string) (string, error) {
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return "", errBadSecret
	}
	accountID, stored, err := h.Secrets.SecretOwner(ctx, domain.HashSecret(secret))
	if errors.Is(err, ErrNotFound) {
		return "", errBadSecret
	}
	if err != nil {
		return "", fmt.Errorf("look up webhook secret: %w", err)
	}
	if !domain.SecretMatches(stored, secret) {
		return "", errBadSecret
	}
	return accountID, nil
}

// deliveryKey is the key a delivery is recognised by when repeated: Idempotency-Key, else
// webhook-id (Standard Webhooks' senders), else none. Each one given is checked, the one not used
// too: a bound the document states holds whichever header a sender fills.
func deliveryKey(cmd ReceiveInboundCmd) (string, error) {
	for _, h := range []struct{ name, value string }{{"Idempotency-Key", cmd.IdempotencyKey}, {"webhook-id", cmd.WebhookID}} {
		if len(h.value) > MaxIdempotencyKeyLength {
			return "", apperr.InvalidField(h.name, fmt.Sprintf("must be at most %d characters", MaxIdempotencyKeyLength))
		}
		if !utf8.ValidString(h.value) {
			// HTTP allows any byte above 0x7f in a header; PostgreSQL's text holds only UTF-8.
			return "", apperr.InvalidField(h.name, "must be UTF-8 text")
		}
	}
	return cmp.Or(cmd.IdempotencyKey, cmd.WebhookID), nil
}

// inboundEvent is the inbound.<event> of an accepted record: its inbox id and its fields.
func inboundEvent(rec InboundRecord) (contracts.Event, error) {
	f := rec.Fields
	switch rec.Event {
	case domain.InboundNewLead:
		return contracts.Event{Type: integrationsevents.InboundNewLead, AccountID: rec.AccountID, Data: integrationsevents.NewLeadData{
			InboundID: rec.ID, Name: f["name"], Email: f["email"], Phone: f["phone"], Source: f["source"], Notes: f["notes"],
			Extras: rec.Extras}}, nil
	case domain.InboundNewClient:
		return contracts.Event{Type: integrationsevents.InboundNewClient, AccountID: rec.AccountID, Data: integrationsevents.NewClientData{
			InboundID: rec.ID, BusinessName: f["businessName"], Email: f["email"], OwnerName: f["ownerName"], Phone: f["phone"], Plan: f["plan"]}}, nil
	case domain.InboundContactForm:
		return contracts.Event{Type: integrationsevents.InboundContactForm, AccountID: rec.AccountID, Data: integrationsevents.ContactFormData{
			InboundID: rec.ID, Name: f["name"], Email: f["email"], Phone: f["phone"], Subject: f["subject"], Message: f["message"]}}, nil
	}
	return contracts.Event{}, fmt.Errorf("inbound event %q has no contract in integrationsevents", rec.Event)
}

// bodyHash identifies "the same event" independently of key order and whitespace.
func bodyHash(in domain.Inbound) []byte {
	canonical, _ := json.Marshal(struct { // a map of strings always encodes, keys sorted
		Event  domain.InboundEvent `json:"event"`
		Fields map[string]string   `json:"fields"`
		Extras map[string]string   `json:"extras,omitempty"` // omitted when none: hashes of earlier bodies hold
	}{in.Event, in.Fields, in.Extras})
	sum := sha256.Sum256(canonical)
	return sum[:]
}

// RotateSecret issues a new inbound webhook secret for an owner account and returns it; this is
// the only time it is shown.
type RotateSecret struct {
	Secrets SecretStore
}

func (h RotateSecret) Handle(ctx context.Context, accountID string) (domain.AccountSecret, error) {
	secret := domain.NewAccountSecret()
	err := h.Secrets.SetSecret(ctx, accountID, domain.HashSecret(string(secret)))
	if errors.Is(err, ErrNotFound) {
		return "", apperr.Forbidden("not_an_owner", "only owner accounts have webhook secrets")
	}
	if err != nil {
		return "", fmt.Errorf("rotate webhook secret: %w", err)
	}
	return secret, nil
}
