// Package sheet holds an account's leads sheet.
package sheet

import (
	"maps"
	"strings"
	"time"

	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents/leadfields"
	"github.com/bizassist/bizassist/services/leads/internal/domain/contact"
)

// Lead is one row of an account's leads sheet. Within an account the email (case-insensitive) is
// a lead's identity, as in CRMs: two leads with the same email are one lead, and its id is
// derived from it; a shared phone (an office line) does not make two people one lead.
type Lead struct {
	id, accountID, name, email, phone, businessName, source, notes string
	phoneExtension, phoneRaw                                       string
	extras                                                         map[string]string
	createdAt                                                      time.Time
	// fieldUpdatedAt is when each field a later copy of the lead changed was changed.
	fieldUpdatedAt map[string]time.Time
}

// LeadInput is a lead as found or received, before validation. Notes and Extras come from
// inbound senders (extras already bounded by integrations). Regions are where a national phone
// number may be from, most likely first (ISO 3166-1 alpha-2: the lead's country, the account's).
type LeadInput struct {
	Name, Email, Phone, BusinessName, Source, Notes string
	Extras                                          map[string]string
	Regions                                         []string
}

// Update merges a later copy of the lead into it, field by field, by leads' rule
// (leadfields.Fields.Changes): a non-empty value that differs replaces or fills the stored one,
// an absent (empty) one blanks nothing. It returns the names of the fields that changed (extras
// as "extras.<key>"), sorted, and stamps each with now. The email is the identity and never
// changes; in is read like NewLead reads it, but an empty Source is absent rather than "api".
func (l *Lead) Update(in LeadInput, now time.Time) []string {
	newer, err := NewLead(l.accountID, in, now)
	if err != nil || newer.id != l.id {
		return nil
	}
	if strings.TrimSpace(in.Source) == "" {
		newer.source = ""
	}
	changed := l.Fields().Changes(newer.Fields())
	if len(changed) == 0 {
		return nil
	}
	for _, f := range changed {
		switch f {
		case "name":
			l.name = newer.name
		case "businessName":
			l.businessName = newer.businessName
		case "source":
			l.source = newer.source
		case "notes":
			l.notes = newer.notes
		case "phone":
			l.phone, l.phoneExtension, l.phoneRaw = newer.phone, newer.phoneExtension, newer.phoneRaw
		default:
			if l.extras == nil {
				l.extras = map[string]string{}
			}
			key := strings.TrimPrefix(f, "extras.")
			l.extras[key] = newer.extras[key]
		}
	}
	if l.fieldUpdatedAt == nil {
		l.fieldUpdatedAt = map[string]time.Time{}
	}
	for _, f := range changed {
		l.fieldUpdatedAt[f] = now.UTC()
	}
	return changed
}

// Fields are the lead's fields by the sheet's names (leadfields.Fields), the email aside.
func (l Lead) Fields() leadfields.Fields {
	f := leadfields.Fields{"name": l.name, "businessName": l.businessName, "source": l.source, "notes": l.notes,
		"phone": StoredPhone{E164: l.phone, Extension: l.phoneExtension, Raw: l.phoneRaw}.Field()}
	for k, v := range l.extras {
		f["extras."+k] = v
	}
	maps.DeleteFunc(f, func(_, v string) bool { return v == "" })
	return f
}

// FieldUpdatedAt is when each field changed by a later copy of the lead last changed; never nil.
func (l Lead) FieldUpdatedAt() map[string]time.Time {
	if l.fieldUpdatedAt == nil {
		return map[string]time.Time{}
	}
	return l.fieldUpdatedAt
}

// FieldError names the input field a lead was rejected for.
type FieldError struct{ Field, Reason string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// NewLead validates a lead for the sheet: the email must be valid, the phone (optional) is kept in
// E.164 form with its extension apart when it parses, and as given (PhoneRaw) when it does not,
// so that a sloppy number neither blocks a lead nor vanishes. Its id is leadsevents.LeadID of the
// account and email.
func NewLead(accountID string, in LeadInput, now time.Time) (Lead, error) {
	email, err := contact.ParseEmail(in.Email)
	if err != nil {
		return Lead{}, &FieldError{"email", err.Error()}
	}
	l := Lead{
		id: leadsevents.LeadID(accountID, email.String()), accountID: accountID,
		notes:        strings.TrimSpace(in.Notes),
		extras:       maps.Clone(in.Extras),
		name:         leadfields.Name(in.Name),
		email:        email.String(),
		businessName: leadfields.Name(in.BusinessName),
		source:       strings.TrimSpace(in.Source),
		createdAt:    now.UTC(),
	}
	p := leadfields.ReadPhone(in.Phone, in.Regions...)
	l.phone, l.phoneExtension, l.phoneRaw = p.E164, p.Extension, p.Raw
	if l.source == "" {
		l.source = "api"
	}
	return l, nil
}

// StoredPhone is a lead's phone as stored: E.164 and extension, or the raw text that did not parse.
type StoredPhone = leadfields.Phone

// RebuildLead restores a lead from storage without validation.
func RebuildLead(id, accountID, name, email string, phone StoredPhone, businessName, source, notes string, extras map[string]string,
	createdAt time.Time, fieldUpdatedAt map[string]time.Time) Lead {
	return Lead{id: id, accountID: accountID, name: name, email: email, phone: phone.E164,
		phoneExtension: phone.Extension, phoneRaw: phone.Raw,
		businessName: businessName, source: source, notes: notes, extras: extras, createdAt: createdAt, fieldUpdatedAt: fieldUpdatedAt}
}

func (l Lead) ID() string        { return l.id }
func (l Lead) AccountID() string { return l.accountID }
func (l Lead) Name() string      { return l.name }
func (l Lead) Email() string     { return l.email }
func (l Lead) Phone() string     { return l.phone }

// PhoneExtension is the extension the phone was written with, digits only; "" when none.
func (l Lead) PhoneExtension() string { return l.phoneExtension }

// PhoneRaw is the phone as given when it could not be parsed (Phone is then ""); "" otherwise.
func (l Lead) PhoneRaw() string     { return l.phoneRaw }
func (l Lead) BusinessName() string { return l.businessName }
func (l Lead) Source() string       { return l.source }
func (l Lead) Notes() string        { return l.notes }
func (l Lead) CreatedAt() time.Time { return l.createdAt }

// Extras are the sender's extra fields; never nil.
func (l Lead) Extras() map[string]string {
	if l.extras == nil {
		return map[string]string{}
	}
	return maps.Clone(l.extras)
}
