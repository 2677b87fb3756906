// Package sheet holds an account's leads sheet.
package sheet

import (
	"strings"
	"time"

	"github.com/bizassist/bizassist/services/leads/internal/domain/contact"
)

// Lead is one row of an account's leads sheet. Within an account, two leads with the same email
// (case-insensitive) or the same phone are the same lead; the store enforces that.
type Lead struct {
	id, accountID, name, email, phone, businessName, source string
	createdAt                                               time.Time
}

// LeadInput is a lead as found or received, before validation.
type LeadInput struct {
	Name, Email, Phone, BusinessName, Source string
}

// FieldError names the input field a lead was rejected for.
type FieldError struct{ Field, Reason string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// NewLead validates a lead for the sheet: the email must be valid, the phone (optional) is kept in
// E.164 form when it parses and dropped otherwise, so that a sloppy number never blocks a lead.
func NewLead(id, accountID string, in LeadInput, now time.Time) (Lead, error) {
	email, err := contact.ParseEmail(in.Email)
	if err != nil {
		return Lead{}, &FieldError{"email", err.Error()}
	}
	l := Lead{
		id: id, accountID: accountID,
		name:         strings.Join(strings.Fields(in.Name), " "),
		email:        email.String(),
		businessName: strings.Join(strings.Fields(in.BusinessName), " "),
		source:       strings.TrimSpace(in.Source),
		createdAt:    now.UTC(),
	}
	if p, err := contact.ParsePhone(in.Phone); err == nil {
		l.phone = p.E164
	}
	if l.source == "" {
		l.source = "api"
	}
	return l, nil
}

// RebuildLead restores a lead from storage without validation.
func RebuildLead(id, accountID, name, email, phone, businessName, source string, createdAt time.Time) Lead {
	return Lead{id: id, accountID: accountID, name: name, email: email, phone: phone,
		businessName: businessName, source: source, createdAt: createdAt}
}

func (l Lead) ID() string           { return l.id }
func (l Lead) AccountID() string    { return l.accountID }
func (l Lead) Name() string         { return l.name }
func (l Lead) Email() string        { return l.email }
func (l Lead) Phone() string        { return l.phone }
func (l Lead) BusinessName() string { return l.businessName }
func (l Lead) Source() string       { return l.source }
func (l Lead) CreatedAt() time.Time { return l.createdAt }
