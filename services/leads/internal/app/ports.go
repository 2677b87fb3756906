// Package app holds the leads use cases, one struct with a Handle method each, and the outbound
// interfaces they need; adapters implement those interfaces.
package app

import (
	"context"
	"time"

	"github.com/bizassist/bizassist/libs/geo"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// SearchQuery is one catalog search. Verticals empty means the industry names no known vertical.
type SearchQuery struct {
	Verticals []string
	TextTerms []string // phrases matched by full text (catalog.TextTerms)
	Location  catalog.Location
	Keywords  []string
	Limit     int
	// Near and RadiusMiles, when Near is set, replace Location's city or ZIP code by the businesses
	// within RadiusMiles of Near, nearer ones first (geo.DistanceMiles).
	Near        *geo.Point
	RadiusMiles float64
}

// Found is a catalog business returned by a search; Rank is its lead-finder score.
type Found struct {
	BusinessName, OwnerName, Email, Phone, Source string
	Rank                                          int
}

// Catalog is the business catalog as the use cases read it.
type Catalog interface {
	// SearchVertical returns the best businesses in q.Verticals, ranked (catalog.Quality).
	SearchVertical(ctx context.Context, q SearchQuery) ([]Found, error)
	// SearchText returns the best businesses outside q.Verticals whose text matches q.Text.
	SearchText(ctx context.Context, q SearchQuery) ([]Found, error)
	// MatchAll looks, for each query, for a business with its email domain, phone or exact name.
	MatchAll(ctx context.Context, qs []MatchQuery) ([]Match, error)
	// Stats aggregates the catalog.
	Stats(ctx context.Context, now time.Time) (Stats, error)
	// Version changes whenever the catalog's content does.
	Version(ctx context.Context) (int64, error)
}

// MatchQuery holds what identifies a lead's business; empty fields are not matched.
type MatchQuery struct{ Domain, Phone, BusinessName string }

// Match reports whether a catalog business matched and whether it lists a website.
type Match struct{ Found, HasWebsite bool }

// Stats is the catalog summary of spec 2.14.
type Stats struct {
	Total       int            `json:"total"`
	NoWebsite   int            `json:"noWebsite"`
	AvgGapScore float64        `json:"avgGapScore"`
	ByVertical  map[string]int `json:"byVertical"`
	TopCities   []CityCount    `json:"topCities"`
	TopStates   []StateCount   `json:"topStates"`
	Last7Days   int            `json:"last7Days"`
	DateRange   DateRange      `json:"dateRange"`
	UpdatedAt   string         `json:"updatedAt"`
}

type CityCount struct {
	City  string `json:"city"`
	Count int    `json:"count"`
}

type StateCount struct {
	State string `json:"state"`
	Count int    `json:"count"`
}

// DateRange bounds the catalog's listing dates; both are null for an empty catalog.
type DateRange struct {
	Earliest *string `json:"earliest"`
	Latest   *string `json:"latest"`
}

// Sheet is the accounts' leads sheets.
type Sheet interface {
	// Append adds the leads not already on the account's sheet and returns the added ones; it
	// joins the transaction ctx carries.
	Append(ctx context.Context, accountID string, leads []sheet.Lead) ([]sheet.Lead, error)
	// Get returns the account's lead with the id, locked for the transaction ctx carries; false
	// when there is none.
	Get(ctx context.Context, accountID, id string) (sheet.Lead, bool, error)
	// Update writes an existing lead's fields back; it joins the transaction ctx carries.
	Update(ctx context.Context, l sheet.Lead) error
	// List returns up to limit leads written before the cursor lead ("" for the newest), newest
	// first; a cursor that names no lead of the account gives none.
	List(ctx context.Context, accountID, before string, limit int) ([]sheet.Lead, error)
	// Each calls fn for every lead of the account, newest first.
	Each(ctx context.Context, accountID string, fn func(sheet.Lead) error) error
}

// Resolver answers DNS questions about a domain; Unknown when DNS did not answer.
type Resolver interface {
	MX(ctx context.Context, domain string) qualify.Outcome
	Resolves(ctx context.Context, domain string) qualify.Outcome
}

// StatsCache keeps the rendered statistics body of a catalog version between computations.
type StatsCache interface {
	Get(ctx context.Context, version int64) ([]byte, bool)
	Set(ctx context.Context, version int64, body []byte, ttl time.Duration)
}
