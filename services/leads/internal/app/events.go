package app

import (
	"context"
	"fmt"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// Outbox publishes events with the writes of the transaction ctx carries (the consumer's or a
// Transactor's), so an event commits if and only if its change does.
type Outbox interface {
	Publish(ctx context.Context, evs ...contracts.Event) error
}

// Transactor runs fn as one unit of work: fn's ctx carries the transaction that the sheet and
// the outbox join.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// addToSheet appends leads to the account's sheet and publishes lead.written for each one that
// was not on it yet, in one unit of work.
func addToSheet(ctx context.Context, tx Transactor, sh Sheet, outbox Outbox, accountID string, leads []sheet.Lead) error {
	return tx.InTx(ctx, func(ctx context.Context) error { return appendAndAnnounce(ctx, sh, outbox, accountID, leads) })
}

// appendAndAnnounce appends the leads and publishes lead.written for the new ones, in the
// transaction ctx carries.
func appendAndAnnounce(ctx context.Context, sh Sheet, outbox Outbox, accountID string, leads []sheet.Lead) error {
	added, err := sh.Append(ctx, accountID, leads)
	if err != nil {
		return fmt.Errorf("append leads: %w", err)
	}
	return announce(ctx, outbox, "", added)
}

// announce publishes lead.written for each lead just added to a sheet, in the transaction ctx
// carries; inboundID names the inbound.new_lead they came from, if one.
func announce(ctx context.Context, outbox Outbox, inboundID string, added []sheet.Lead) error {
	evs := make([]contracts.Event, len(added))
	for i, l := range added {
		evs[i] = contracts.Event{Type: leadsevents.LeadWritten, AccountID: l.AccountID(), Data: leadsevents.LeadWrittenData{
			LeadID: l.ID(), Name: l.Name(), Email: l.Email(), Phone: l.Phone(), Source: l.Source(),
			BusinessName: l.BusinessName(), Timestamp: isotime.Of(l.CreatedAt()), InboundID: inboundID,
		}}
	}
	return outbox.Publish(ctx, evs...)
}
