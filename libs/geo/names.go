package geo

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// aliases are names people use for a place that the data does not carry. They apply to the whole
// location (or its city part); "LA" is Los Angeles only as a whole location ("Austin, LA" is
// Louisiana).
var aliases = map[string][2]string{
	"nyc": {"New York", "NY"}, "new york city": {"New York", "NY"}, "manhattan": {"New York", "NY"},
	"la": {"Los Angeles", "CA"}, "l a": {"Los Angeles", "CA"},
	"dc": {"Washington", "DC"}, "washington dc": {"Washington", "DC"}, "district of columbia": {"Washington", "DC"},
	"sf": {"San Francisco", "CA"}, "san fran": {"San Francisco", "CA"},
	"philly": {"Philadelphia", "PA"}, "vegas": {"Las Vegas", "NV"}, "nola": {"New Orleans", "LA"},
	"slc": {"Salt Lake City", "UT"}, "okc": {"Oklahoma City", "OK"}, "kc": {"Kansas City", "MO"},
}

// aliasByKey is aliases under their keys, for a city part written in any of its spellings.
var aliasByKey = func() map[string][2]string {
	m := make(map[string][2]string, len(aliases))
	for name, place := range aliases {
		m[key(name)] = place
	}
	return m
}()

// wordExpansions spell out the abbreviations place names are written with.
var wordExpansions = map[string]string{
	"st": "saint", "ste": "sainte", "ft": "fort", "mt": "mount", "mtn": "mountain", "pt": "point",
	"spgs": "springs", "spg": "spring", "hts": "heights", "jct": "junction",
	"n": "north", "s": "south", "e": "east", "w": "west",
}

var countryNames = map[string]bool{"us": true, "usa": true, "united states": true, "united states of america": true, "america": true}

var zipAny = regexp.MustCompile(`^(\d{5})(?:-?\d{4})?$`)

// stripAccents drops combining marks ("Cañon" → "Canon"). A transform.Chain keeps state, so
// each call makes its own (shared, it races and panics under concurrent requests).
func stripAccents(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	if t, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s); err == nil {
		return t
	}
	return s
}

// fold drops accents, case and punctuation: "Cañon City" and "canon city" are one.
func fold(s string) string {
	s = strings.ToLower(stripAccents(s))
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '.' || r == '\'' || r == '’' || r == '‘' || r == 'ʻ':
			return -1
		case r == '-' || r == ',' || r == '/':
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// key normalises a city name: folded, a leading "The" dropped ("The Bronx" is the Bronx), the
// abbreviations place names are written with spelt out and the spaces left out, so "St. Louis",
// "Saint Louis" and "saint louis" are one key, and so are "De Quincy" and "DeQuincy", "Mc Grath"
// and "McGrath". A one-word name is kept.
func key(s string) string {
	words := strings.Fields(fold(s))
	if len(words) > 1 && words[0] == "the" {
		words = words[1:]
	}
	if len(words) > 1 {
		for i, w := range words {
			if x, ok := wordExpansions[w]; ok {
				words[i] = x
			}
		}
	}
	return strings.Join(words, "")
}
