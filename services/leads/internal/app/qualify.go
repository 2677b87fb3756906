package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/leads/internal/domain/contact"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
)

// LeadInput is spec 2.3.
type LeadInput struct {
	Email, BusinessName, Phone string
}

// Qualifier gathers the facts about a lead (DNS, catalog) and has the domain weigh them. It is
// shared by lead-qualify and lead-quality-batch.
type Qualifier struct {
	Catalog  Catalog
	Resolver Resolver
}

// Assess scores one lead. Only a failing catalog (our own database) is an error; DNS that does
// not answer makes its checks unknown.
func (q Qualifier) Assess(ctx context.Context, in LeadInput) (qualify.Result, error) {
	var f qualify.Facts
	f.Email, f.EmailErr = contact.ParseEmail(in.Email)
	if strings.TrimSpace(in.Phone) != "" {
		f.PhoneGiven = true
		f.Phone, f.PhoneErr = contact.ParsePhone(in.Phone)
	}
	m := MatchQuery{BusinessName: strings.Join(strings.Fields(in.BusinessName), " ")}
	if f.EmailErr == nil && !qualify.IsFreeMail(f.Email.Domain) {
		m.Domain = f.Email.Domain
	}
	if f.PhoneGiven && f.PhoneErr == nil {
		m.Phone = f.Phone.E164
	}
	if f.EmailErr == nil {
		f.MX = q.Resolver.MX(ctx, f.Email.Domain)
		if !qualify.IsFreeMail(f.Email.Domain) {
			f.DomainResolves = q.Resolver.Resolves(ctx, f.Email.Domain)
		}
	}
	if m != (MatchQuery{}) {
		match, err := q.Catalog.Match(ctx, m)
		if err != nil {
			return qualify.Result{}, fmt.Errorf("catalog match: %w", err)
		}
		f.Listed, f.ListedWebsite = match.Found, match.HasWebsite
	}
	return qualify.Assess(f), nil
}

// QualifyLead is GET /api/lead-qualify. A malformed email is scored (low), not refused.
type QualifyLead struct{ Qualifier Qualifier }

func (h QualifyLead) Handle(ctx context.Context, in LeadInput) (qualify.Result, error) {
	if strings.TrimSpace(in.Email) == "" {
		return qualify.Result{}, apperr.MissingField("email")
	}
	if err := checkLengths(in, "email", "businessName", "phone"); err != nil {
		return qualify.Result{}, err
	}
	return h.Qualifier.Assess(ctx, in)
}

// checkLengths bounds free-text input so nothing unbounded reaches DNS or SQL.
func checkLengths(in LeadInput, emailField, nameField, phoneField string) error {
	switch {
	case len(in.Email) > 254:
		return apperr.InvalidField(emailField, "must be at most 254 characters")
	case len(in.BusinessName) > 200:
		return apperr.InvalidField(nameField, "must be at most 200 characters")
	case len(in.Phone) > 40:
		return apperr.InvalidField(phoneField, "must be at most 40 characters")
	}
	return nil
}
