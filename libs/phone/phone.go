// Package phone reads phone numbers as people write them, in any country's national or
// international form, with libphonenumber. Leads stores and scores them; integrations warns an
// inbound sender about one it cannot read.
package phone

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// ErrInvalid says a number is not a valid phone number for any candidate region.
var ErrInvalid = errors.New("is not a valid phone number")

// Number is a valid number in E.164 form with the region it belongs to and, apart, the extension
// it was written with (E.164 has no place for one).
type Number struct {
	E164      string
	Extension string
	Region    string
}

// fallbackRegion is tried last, and only for numbers dialled with its "00" international prefix:
// most of the world dials abroad with 00, so "0049 30 1234567" is German wherever it was written.
const fallbackRegion = "DE"

// Parse reads a number written in international form ("+49 …", or with the international
// prefix of a candidate region: "0049 …" where 00 is dialled abroad, "011 49 …" from the US) or as
// a national number of the first candidate region it is valid in. Candidates are the given
// regions (ISO 3166-1 alpha-2, e.g. the lead's country, then the account's) and then US. A
// number is accepted only when libphonenumber's metadata says it is valid; an extension
// ("ext. 12", "x12") is kept apart.
func Parse(s string, regions ...string) (Number, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Number{}, ErrInvalid
	}
	for _, r := range candidateRegions(regions) {
		// Each region's own prefixes decide: "0113 496 0000" is a Leeds number in GB and "011 …"
		// is the international prefix in the US.
		if num, err := phonenumbers.Parse(s, r); err == nil {
			if n, ok := valid(num); ok {
				return n, nil
			}
		}
	}
	num, err := phonenumbers.ParseAndKeepRawInput(s, fallbackRegion)
	if err != nil || num.GetCountryCodeSource() != phonenumbers.PhoneNumber_FROM_NUMBER_WITH_IDD {
		return Number{}, ErrInvalid
	}
	if n, ok := valid(num); ok {
		return n, nil
	}
	return Number{}, ErrInvalid
}

// candidateRegions keeps the known region codes among hints, in order and once, then US.
func candidateRegions(hints []string) []string {
	out := make([]string, 0, len(hints)+1)
	for _, h := range append(hints, "US") {
		h = strings.ToUpper(strings.TrimSpace(h))
		if phonenumbers.GetCountryCodeForRegion(h) != 0 && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// valid is phonenumbers.IsValidNumber keeping the region it finds: looking it up (for +1, a
// match against each NANP region's patterns) is half the check's cost, so it is done once.
func valid(num *phonenumbers.PhoneNumber) (Number, bool) {
	region := phonenumbers.GetRegionCodeForNumber(num)
	if !phonenumbers.IsValidNumberForRegion(num, region) {
		return Number{}, false
	}
	return Number{E164: phonenumbers.Format(num, phonenumbers.E164), Extension: num.GetExtension(), Region: region}, true
}

// RegionHints are the regions an inbound lead's extra fields say its national numbers are from,
// in order: its "country", then the country of its "address" (a nested object, kept as JSON:
// {"country": "DE"} or {"countryCode": "DE"}). Values that are not region codes are dropped by
// Parse.
func RegionHints(extras map[string]string) []string {
	hints := []string{extras["country"]}
	var address struct {
		Country     string `json:"country"`
		CountryCode string `json:"countryCode"`
	}
	if raw := extras["address"]; raw != "" && json.Unmarshal([]byte(raw), &address) == nil {
		hints = append(hints, address.Country, address.CountryCode)
	}
	return hints
}
