package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents/leadfields"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/phone"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// Sheet listing limits.
const (
	DefaultListLimit = 50
	MaxListLimit     = 100
)

// ListSheet is GET /api/leads: the caller's sheet, newest first, a page at a time.
type ListSheet struct{ Sheet Sheet }

// ListInput carries the raw query values so that bad ones are reported by name.
type ListInput struct {
	AccountID, Cursor string
	Limit             int
}

// Page is one page of the sheet; NextCursor is "" on the last page.
type Page struct {
	Leads      []sheet.Lead
	NextCursor string
}

func (h ListSheet) Handle(ctx context.Context, in ListInput) (Page, error) {
	limit := in.Limit
	if limit < 1 || limit > MaxListLimit {
		return Page{}, apperr.InvalidField("limit", fmt.Sprintf("must be an integer from 1 to %d", MaxListLimit))
	}
	if in.Cursor != "" && !ids.Valid("lead", in.Cursor) {
		return Page{}, apperr.InvalidField("cursor", "must be the nextCursor of a previous page")
	}
	// One extra row tells whether another page follows.
	leads, err := h.Sheet.List(ctx, in.AccountID, in.Cursor, limit+1)
	if err != nil {
		return Page{}, fmt.Errorf("list sheet: %w", err)
	}
	p := Page{Leads: leads}
	if len(leads) > limit {
		p.Leads = leads[:limit]
		p.NextCursor = p.Leads[limit-1].ID()
	}
	return p, nil
}

// ExportSheet is GET /api/leads/export.csv: every lead of the caller, streamed to fn.
type ExportSheet struct{ Sheet Sheet }

func (h ExportSheet) Handle(ctx context.Context, accountID string, fn func(sheet.Lead) error) error {
	return h.Sheet.Each(ctx, accountID, fn)
}

// RecordInboundLead consumes inbound.new_lead: the lead joins the owner's sheet and, when new,
// emits lead.written, inside the consumer's transaction.
type RecordInboundLead struct {
	Tx     Transactor
	Sheet  Sheet
	Outbox Outbox
	Now    func() time.Time
}

// InboundLeadCommand is an inbound new_lead for the account whose webhook secret received it.
type InboundLeadCommand struct {
	EventID   string // the consumed event, for the log
	AccountID string
	InboundID string
	Name      string
	Email     string
	Phone     string
	Source    string
	Notes     string
	Extras    map[string]string
}

// Handle fails only for what a redelivery could fix; a lead that can never be valid is logged
// and dropped, since retrying it would only end in the dead-letter stream. A lead already on the
// sheet is updated field by field (sheet.Lead.Update) and emits nothing: lead.written is for a
// lead new to the sheet (docs/decisions.md, Leads).
func (h RecordInboundLead) Handle(ctx context.Context, cmd InboundLeadCommand) error {
	in := sheet.LeadInput{
		Name: cmd.Name, Email: cmd.Email, Phone: cmd.Phone, Source: cmd.Source, Notes: cmd.Notes, Extras: cmd.Extras,
		// A sender's "country" extra, or its address's, says where a national number is from.
		Regions: phone.RegionHints(cmd.Extras),
	}
	fresh := in
	if fresh.Source == "" {
		fresh.Source = leadfields.WebhookSource
	}
	l, err := sheet.NewLead(cmd.AccountID, fresh, h.Now())
	if err != nil {
		slog.WarnContext(ctx, "inbound lead dropped: invalid", "event", cmd.EventID, "inboundId", cmd.InboundID, "error", err)
		return nil
	}
	return h.Tx.InTx(ctx, func(ctx context.Context) error {
		// Insert first, then lock: an insert racing another consumer's of the same lead waits for
		// it and does nothing, and the row it made is then there to merge into. Reading first let
		// two consumers both see no row, and the second delivery's fields were lost.
		added, err := h.Sheet.Append(ctx, cmd.AccountID, []sheet.Lead{l})
		if err != nil {
			return fmt.Errorf("append lead: %w", err)
		}
		if len(added) > 0 {
			return announce(ctx, h.Outbox, cmd.InboundID, added)
		}
		known, found, err := h.Sheet.Get(ctx, cmd.AccountID, l.ID())
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("lead %s neither added nor on the sheet", l.ID())
		}
		if changed := known.Update(in, h.Now()); len(changed) > 0 {
			slog.InfoContext(ctx, "inbound lead merged", "event", cmd.EventID, "lead", l.ID(), "changed", changed)
			return h.Sheet.Update(ctx, known)
		}
		return nil
	})
}
