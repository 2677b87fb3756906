package app

import (
	"context"
	"fmt"
	"maps"

	"github.com/bizassist/bizassist/libs/contracts/leadsevents/leadfields"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// NewAccount is an account identity created: what this service keeps of it.
type NewAccount struct {
	AccountID string
	Email     string
	Role      string // owner or client
	OwnerID   string // clients only
}

// AccountProjection keeps the accounts this service needs to know about.
type AccountProjection interface {
	// SaveAccount records the account and, for owners, their first secret hash; it is a no-op
	// for an account already recorded.
	SaveAccount(ctx context.Context, a NewAccount, secretHash []byte) error
}

// ProjectAccount records a new account and gives owners a webhook secret. That first secret is
// never shown: an owner obtains a usable one by rotating it, which is how it is "shown once".
type ProjectAccount struct {
	Accounts AccountProjection
}

func (h ProjectAccount) Handle(ctx context.Context, a NewAccount) error {
	if a.AccountID == "" || a.Email == "" || (a.Role != "owner" && a.Role != "client") {
		return fmt.Errorf("account.created without accountId, email or a known role: %+v", a)
	}
	var hash []byte
	if a.Role == "owner" {
		hash = domain.HashSecret(string(domain.NewAccountSecret()))
	}
	return h.Accounts.SaveAccount(ctx, a, hash)
}

// WrittenLead is a lead leads wrote to an account's sheet (lead.written).
type WrittenLead struct {
	AccountID, LeadID string
	// InboundID is the inbound new_lead it came from, if one: this service made that lead known
	// when it accepted it.
	InboundID string
	Fields    leadfields.Fields // as leads stored them
}

// KnowLead notes a lead written to an account's sheet, so that a later inbound new_lead with its
// email is answered as a merge into it. A lead is recorded once: one from an inbound new_lead
// was recorded with it (InboxStore.Accept).
type KnowLead struct {
	Leads KnownLeads
}

func (h KnowLead) Handle(ctx context.Context, l WrittenLead) error {
	if l.InboundID != "" {
		return nil
	}
	maps.DeleteFunc(l.Fields, func(_, v string) bool { return v == "" })
	_, err := h.Leads.KnowLead(ctx, l.AccountID, l.LeadID, l.Fields)
	return err
}

// ForwardCommand is an event of the account to forward to its subscribers: a lead written to
// its sheet (domain.LeadWritten), a client of it that entered the critical tier
// (domain.HealthCritical).
type ForwardCommand[E any] struct {
	AccountID string
	Event     E
}

// Forward plans deliveries of one kind of event to the account's subscribers, as the outbound
// message Message makes of it.
type Forward[E any] struct {
	Planner Planner
	Message func(E) (domain.Message, error)
}

// NewForwardLead plans new_lead deliveries.
func NewForwardLead(p Planner) Forward[domain.LeadWritten] {
	return Forward[domain.LeadWritten]{Planner: p, Message: domain.NewLeadMessage}
}

// NewForwardHealthCritical plans health_score.critical deliveries.
func NewForwardHealthCritical(p Planner) Forward[domain.HealthCritical] {
	return Forward[domain.HealthCritical]{Planner: p, Message: domain.HealthCriticalMessage}
}

func (h Forward[E]) Handle(ctx context.Context, cmd ForwardCommand[E]) error {
	msg, err := h.Message(cmd.Event)
	if err != nil {
		return err
	}
	_, err = h.Planner.Plan(ctx, cmd.AccountID, msg)
	return err
}
