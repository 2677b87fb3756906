package app

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/phone"
	"github.com/bizassist/bizassist/services/leads/internal/domain/contact"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
)

// LeadInput is spec 2.3.
type LeadInput struct {
	Email, BusinessName, Phone string
	Country                    string // where a national phone number is from (ISO 3166-1 alpha-2), optional
}

// Qualifier gathers the facts about leads (DNS, catalog) and has the domain weigh them. It is
// shared by lead-qualify and lead-quality-batch.
type Qualifier struct {
	Catalog  Catalog
	Resolver Resolver
}

// dnsParallelism bounds the DNS questions one batch has in flight.
const dnsParallelism = 8

// Assess scores one lead.
func (q Qualifier) Assess(ctx context.Context, in LeadInput) (qualify.Result, error) {
	rs, err := q.AssessAll(ctx, []LeadInput{in})
	if err != nil {
		return qualify.Result{}, err
	}
	return rs[0], nil
}

// AssessAll scores leads with one catalog query for all of them and their DNS questions in
// parallel. Only a failing catalog (our own database) is an error; DNS that does not answer
// makes its checks unknown.
func (q Qualifier) AssessAll(ctx context.Context, ins []LeadInput) ([]qualify.Result, error) {
	facts := make([]qualify.Facts, len(ins))
	matches := make([]MatchQuery, len(ins))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(dnsParallelism)
	for i, in := range ins {
		f := &facts[i]
		f.Email, f.EmailErr = contact.ParseEmail(in.Email)
		if strings.TrimSpace(in.Phone) != "" {
			f.PhoneGiven = true
			f.Phone, f.PhoneErr = phone.Parse(in.Phone, in.Country)
		}
		matches[i] = MatchQuery{BusinessName: strings.Join(strings.Fields(in.BusinessName), " ")}
		if f.PhoneGiven && f.PhoneErr == nil {
			matches[i].Phone = f.Phone.E164
		}
		if f.EmailErr != nil {
			continue
		}
		free := qualify.IsFreeMail(f.Email.Domain)
		if !free {
			matches[i].Domain = f.Email.Domain
		}
		g.Go(func() error {
			f.MX = q.Resolver.MX(gctx, f.Email.Domain)
			if !free {
				f.DomainResolves = q.Resolver.Resolves(gctx, f.Email.Domain)
			}
			return nil
		})
	}
	found, err := q.Catalog.MatchAll(ctx, matches)
	_ = g.Wait() // DNS failures are unknowns, not errors
	if err != nil {
		return nil, fmt.Errorf("catalog match: %w", err)
	}
	results := make([]qualify.Result, len(ins))
	for i := range facts {
		facts[i].Listed, facts[i].ListedWebsite = found[i].Found, found[i].HasWebsite
		results[i] = qualify.Assess(facts[i])
	}
	return results, nil
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
