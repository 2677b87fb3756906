// Package catalog holds the business catalog's rules: what a valid business record is, how an
// industry and a location are understood, and how a found business is ranked.
package catalog

import (
	"regexp"
	"strings"
	"time"

	"github.com/bizassist/bizassist/libs/geo"
	"github.com/bizassist/bizassist/libs/phone"
	"github.com/bizassist/bizassist/services/leads/internal/domain/contact"
)

// Business is one catalog record. Fields are read through methods so that only NewBusiness (for
// input) and RebuildBusiness (for storage) can make one.
type Business struct {
	externalID, name, owner, email, phone, website, websiteDomain string
	vertical                                                      string
	categories                                                    []string
	street, city, state, zip                                      string
	lat, lng                                                      *float64
	source                                                        string
	gapScore                                                      int
	listedAt                                                      time.Time
}

// BusinessInput is one raw row of a catalog file.
type BusinessInput struct {
	ID, Name, Owner, Email, Phone, Website, Vertical string
	Categories                                       []string
	Street, City, State, ZIP                         string
	Lat, Lng                                         *float64
	Source                                           string
	GapScore                                         *int
	ListedAt                                         *time.Time
}

// FieldError names the input field a row was rejected for.
type FieldError struct {
	Field, Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

var (
	externalIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)
	slugPattern       = regexp.MustCompile(`^[a-z][a-z0-9_]{1,47}$`)
	zip5Pattern       = regexp.MustCompile(`^\d{5}$`)
)

// NewBusiness validates a raw row. Email, phone, website, street, coordinates and gap score are
// optional; the gap score is derived from web presence when absent. now stamps a missing listedAt.
func NewBusiness(in BusinessInput, now time.Time) (Business, error) {
	b := Business{
		externalID: strings.TrimSpace(in.ID),
		name:       collapseSpaces(in.Name),
		owner:      collapseSpaces(in.Owner),
		vertical:   strings.TrimSpace(in.Vertical),
		street:     collapseSpaces(in.Street),
		city:       collapseSpaces(in.City),
		zip:        strings.TrimSpace(in.ZIP),
		source:     strings.TrimSpace(in.Source),
		lat:        in.Lat,
		lng:        in.Lng,
		listedAt:   now.UTC(),
	}
	switch {
	case !externalIDPattern.MatchString(b.externalID):
		return Business{}, &FieldError{"id", "must be 1-128 letters, digits or . _ : -"}
	case b.name == "" || len(b.name) > 200:
		return Business{}, &FieldError{"name", "is required (at most 200 characters)"}
	case len(b.owner) > 120:
		return Business{}, &FieldError{"owner", "is longer than 120 characters"}
	case !slugPattern.MatchString(b.vertical):
		return Business{}, &FieldError{"vertical", "must be a lower-case slug such as plumbing"}
	case !cityPattern.MatchString(b.city):
		return Business{}, &FieldError{"city", "is required and must be a place name"}
	case b.zip != "" && !zip5Pattern.MatchString(b.zip):
		return Business{}, &FieldError{"zip", "must be 5 digits"}
	case b.source != "" && !slugPattern.MatchString(b.source):
		return Business{}, &FieldError{"source", "must be a lower-case label such as organic"}
	}
	code, ok := geo.StateCode(strings.TrimSpace(in.State))
	if !ok {
		return Business{}, &FieldError{"state", "must be a US state code or name"}
	}
	b.state = code
	if b.source == "" {
		b.source = "catalog"
	}
	if in.Email != "" {
		e, err := contact.ParseEmail(in.Email)
		if err != nil {
			return Business{}, &FieldError{"email", err.Error()}
		}
		b.email = e.String()
	}
	if in.Phone != "" {
		p, err := phone.Parse(in.Phone)
		if err != nil {
			return Business{}, &FieldError{"phone", err.Error()}
		}
		b.phone = p.E164
	}
	if in.Website != "" {
		if b.websiteDomain = contact.DomainOfURL(in.Website); b.websiteDomain == "" {
			return Business{}, &FieldError{"website", "is not a website address"}
		}
		b.website = strings.TrimSpace(in.Website)
	}
	if (b.lat == nil) != (b.lng == nil) || (b.lat != nil && (*b.lat < -90 || *b.lat > 90 || *b.lng < -180 || *b.lng > 180)) {
		return Business{}, &FieldError{"lat", "lat and lng must both be given and in range"}
	}
	for _, c := range in.Categories {
		if c = collapseSpaces(c); c != "" {
			b.categories = append(b.categories, strings.ToLower(c))
		}
	}
	if in.ListedAt != nil {
		b.listedAt = in.ListedAt.UTC()
	}
	b.gapScore = DeriveGapScore(b.website != "", b.email != "", b.phone != "")
	if in.GapScore != nil {
		if *in.GapScore < 0 || *in.GapScore > 100 {
			return Business{}, &FieldError{"gapScore", "must be an integer from 0 to 100"}
		}
		b.gapScore = *in.GapScore
	}
	return b, nil
}

// DeriveGapScore estimates how much a business stands to gain from help with its web presence:
// no website weighs most (60), then no listed email (20) and no listed phone (20).
func DeriveGapScore(hasWebsite, hasEmail, hasPhone bool) int {
	gap := 0
	if !hasWebsite {
		gap += 60
	}
	if !hasEmail {
		gap += 20
	}
	if !hasPhone {
		gap += 20
	}
	return gap
}

func (b Business) ExternalID() string    { return b.externalID }
func (b Business) Name() string          { return b.name }
func (b Business) Owner() string         { return b.owner }
func (b Business) Email() string         { return b.email }
func (b Business) Phone() string         { return b.phone }
func (b Business) Website() string       { return b.website }
func (b Business) WebsiteDomain() string { return b.websiteDomain }
func (b Business) Vertical() string      { return b.vertical }
func (b Business) Categories() []string  { return b.categories }
func (b Business) Street() string        { return b.street }
func (b Business) City() string          { return b.city }
func (b Business) State() string         { return b.state }
func (b Business) ZIP() string           { return b.zip }
func (b Business) Lat() *float64         { return b.lat }
func (b Business) Lng() *float64         { return b.lng }
func (b Business) Source() string        { return b.source }
func (b Business) GapScore() int         { return b.gapScore }
func (b Business) ListedAt() time.Time   { return b.listedAt }

// EmailDomain is the domain of the listed email, or "".
func (b Business) EmailDomain() string {
	if i := strings.LastIndexByte(b.email, '@'); i >= 0 {
		return b.email[i+1:]
	}
	return ""
}

// Completeness is the share, 0 to 100, of contact fields present: owner, email, phone, website, street.
func (b Business) Completeness() int {
	n := 0
	for _, f := range []string{b.owner, b.email, b.phone, b.website, b.street} {
		if f != "" {
			n++
		}
	}
	return n * 20
}

// Quality is the location- and query-independent part of the rank; see Rank.
func (b Business) Quality() int { return Quality(b.gapScore, b.Completeness()) }
