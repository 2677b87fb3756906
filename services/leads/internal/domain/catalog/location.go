package catalog

import (
	"regexp"
	"strings"

	"github.com/bizassist/bizassist/libs/geo"
)

// Location narrows a search to a ZIP code, a city (optionally in a state) or a state: the
// gazetteer's, which resolves the places a search names. The zero Location means anywhere.
type Location = geo.Location

var (
	zipPattern  = regexp.MustCompile(`^\d{5}(?:-\d{4})?$`)
	cityPattern = regexp.MustCompile(`^\p{L}[\p{L} .'-]{0,79}$`)
)

// ParseLocation accepts "Austin, TX", "Austin, Texas", "Austin", "Texas", "TX" and "78701".
// A lone word that names a state is the state; anything else shaped like a place name is a city.
func ParseLocation(s string) (Location, error) {
	s = collapseSpaces(s)
	if s == "" {
		return Location{}, nil
	}
	if zipPattern.MatchString(s) {
		return Location{ZIP: s[:5]}, nil
	}
	if city, state, ok := strings.Cut(s, ","); ok {
		city, state = strings.TrimSpace(city), strings.TrimSpace(state)
		code, known := geo.StateCode(state)
		if !known || !cityPattern.MatchString(city) {
			return Location{}, geo.ErrBadLocation
		}
		return Location{City: city, State: code}, nil
	}
	if code, ok := geo.StateCode(s); ok {
		return Location{State: code}, nil
	}
	if !cityPattern.MatchString(s) || len(s) == 2 {
		return Location{}, geo.ErrBadLocation
	}
	return Location{City: s}, nil
}

func collapseSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }
