package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bizassist/bizassist/libs/allowance"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/geo"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// Lead-finder limits (spec 8).
const (
	DefaultFindLimit = 10
	MaxFindLimit     = 50
	maxKeywords      = 10
	maxTermLen       = 100
	MinRadiusMiles   = 1
	MaxRadiusMiles   = 100
)

// Places resolves location strings to places (libs/geo's gazetteer over its embedded data).
type Places interface {
	Resolve(location string) (geo.Resolved, error)
}

// FindLeads is POST /api/lead-finder: one search is one lead_finder use of the caller's plan.
type FindLeads struct {
	Catalog    Catalog
	Tx         Transactor
	Sheet      Sheet
	Outbox     Outbox
	Allowances allowance.Reserver
	UpgradeURL string
	Now        func() time.Time
	// Places resolves the location; nil reads it by shape only (catalog.ParseLocation), for
	// tests that have no place data.
	Places Places
}

// FindLeadsInput is the request as decoded; Limit nil means the default. Credential is the
// caller's bearer token, for the allowance.
type FindLeadsInput struct {
	AccountID  string
	Credential string
	Industry   string
	Location   string
	Limit      *int
	Keywords   []string
	// RadiusMiles, when set, searches around the resolved city or ZIP code instead of inside it.
	RadiusMiles *float64
}

// FindResult is a search's answer: the ranked leads and, when a location was given, the place
// that was searched in words ("Austin, TX", "78701 (Austin, TX)", "Texas"), the other places of
// its name when it was written without a state, and the radius searched around a place that has
// no postal name of its own (a borough, neighbourhood or census-designated place), if no radius
// was asked.
type FindResult struct {
	Found            []Found
	ResolvedLocation string
	Alternatives     []string
	NearMiles        float64
}

// Handle reserves one lead_finder use, then searches the catalog and appends the found leads to
// the caller's sheet (new ones emit lead.written). A search that fails or finds nothing gives the
// use back: a use is a search that delivered leads.
func (h FindLeads) Handle(ctx context.Context, in FindLeadsInput) (FindResult, error) {
	q, err := buildSearch(in)
	if err != nil {
		return FindResult{}, err
	}
	where, err := h.resolve(in, &q)
	if err != nil {
		return FindResult{}, err
	}
	res, err := allowance.Reserve(ctx, h.Allowances, in.Credential, allowance.Request{Feature: allowance.FeatureLeadFinder, Action: "search", Count: 1},
		func(l *allowance.LimitReached) error {
			return limitError(CodeLeadFinderLimit, fmt.Sprintf("the monthly allowance of %d lead searches is used up", l.Limit), l, h.UpgradeURL)
		})
	if err != nil {
		return FindResult{}, err
	}
	found, err := h.search(ctx, in.AccountID, q)
	if err != nil || len(found) == 0 {
		allowance.Release(ctx, h.Allowances, in.Credential, res)
	}
	if err != nil {
		return FindResult{}, err
	}
	where.Found = found
	return where, nil
}

// resolve reads the location through the gazetteer into q and says which place it is. An unknown
// place is a 400 naming location with up to three suggestions; a radius needs a city or ZIP code
// to be centred on. A place with no postal name of its own is searched around its point, its
// businesses being addressed to a neighbouring town's name.
func (h FindLeads) resolve(in FindLeadsInput, q *SearchQuery) (FindResult, error) {
	if in.RadiusMiles != nil {
		if r := *in.RadiusMiles; !(r >= MinRadiusMiles && r <= MaxRadiusMiles) {
			return FindResult{}, apperr.InvalidField("radiusMiles", fmt.Sprintf("must be a number of miles from %d to %d", MinRadiusMiles, MaxRadiusMiles))
		}
	}
	if h.Places == nil {
		loc, err := catalog.ParseLocation(in.Location)
		if err != nil {
			return FindResult{}, apperr.InvalidField("location", err.Error())
		}
		q.Location = loc
		if in.RadiusMiles != nil {
			return FindResult{}, apperr.InvalidField("radiusMiles", "needs place data, which this server has not loaded")
		}
		return FindResult{}, nil
	}
	r, err := h.Places.Resolve(in.Location)
	var unknown *geo.UnknownPlaceError
	switch {
	case errors.As(err, &unknown):
		return FindResult{}, apperr.InvalidField("location", unknown.Error()).With("suggestions", unknown.Suggestions)
	case err != nil:
		return FindResult{}, apperr.InvalidField("location", err.Error()).With("suggestions", []string{})
	}
	q.Location = r.Location
	res := FindResult{ResolvedLocation: r.Name, Alternatives: r.Alternatives}
	switch {
	case in.RadiusMiles != nil:
		if r.Point == nil {
			return FindResult{}, apperr.InvalidField("radiusMiles", "needs a city or ZIP code location to search around")
		}
		q.Near, q.RadiusMiles = r.Point, *in.RadiusMiles
	case r.NearMiles > 0:
		q.Near, q.RadiusMiles = r.Point, r.NearMiles
		res.NearMiles = r.NearMiles
	}
	return res, nil
}

// search ranks the catalog's matches and appends them to the account's sheet in one transaction.
func (h FindLeads) search(ctx context.Context, accountID string, q SearchQuery) ([]Found, error) {
	found, err := h.Catalog.SearchVertical(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("search verticals: %w", err)
	}
	// Text-only matches never outrank a vertical match (the rank in package catalog), so they only fill
	// what the verticals leave.
	if len(found) < q.Limit {
		rest := q
		rest.Limit = q.Limit - len(found)
		more, err := h.Catalog.SearchText(ctx, rest)
		if err != nil {
			return nil, fmt.Errorf("search text: %w", err)
		}
		found = append(found, more...)
	}

	now := h.Now()
	leads := make([]sheet.Lead, 0, len(found))
	for _, f := range found {
		l, err := sheet.NewLead(accountID, sheet.LeadInput{
			Name: f.OwnerName, Email: f.Email, Phone: f.Phone, BusinessName: f.BusinessName, Source: f.Source,
		}, now)
		if err != nil {
			return nil, fmt.Errorf("catalog row %q is not a valid lead: %w", f.BusinessName, err)
		}
		leads = append(leads, l)
	}
	if err := addToSheet(ctx, h.Tx, h.Sheet, h.Outbox, accountID, leads); err != nil {
		return nil, fmt.Errorf("add found leads: %w", err)
	}
	return found, nil
}

func buildSearch(in FindLeadsInput) (SearchQuery, error) {
	industry := strings.Join(strings.Fields(in.Industry), " ")
	if industry == "" {
		return SearchQuery{}, apperr.MissingField("industry")
	}
	if len(industry) > maxTermLen {
		return SearchQuery{}, apperr.InvalidField("industry", fmt.Sprintf("must be at most %d characters", maxTermLen))
	}
	limit := DefaultFindLimit
	if in.Limit != nil {
		limit = *in.Limit
		if limit < 1 || limit > MaxFindLimit {
			return SearchQuery{}, apperr.InvalidField("limit", fmt.Sprintf("must be an integer from 1 to %d", MaxFindLimit))
		}
	}
	if len(in.Keywords) > maxKeywords {
		return SearchQuery{}, apperr.InvalidField("keywords", fmt.Sprintf("at most %d keywords", maxKeywords))
	}
	var keywords []string
	for _, k := range in.Keywords {
		k = strings.Join(strings.Fields(k), " ")
		if k == "" || len(k) > maxTermLen {
			return SearchQuery{}, apperr.InvalidField("keywords", fmt.Sprintf("each keyword must be 1 to %d characters", maxTermLen))
		}
		keywords = append(keywords, k)
	}
	return SearchQuery{
		Verticals: catalog.MatchVerticals(industry),
		TextTerms: catalog.TextTerms(industry),
		Keywords:  keywords,
		Limit:     limit,
	}, nil
}
