package domain

import (
	"strings"
)

// Gazetteer says whether a phrase names a place. A phrase is taken as a place only when it
// resolves, so "what about reviews?" is never searched as a city. The product's gazetteer
// (libs/geo, the lead finder's) implements it through an adapter.
type Gazetteer interface {
	// Resolve returns the place as the lead finder should be given it, and whether the phrase is
	// one.
	Resolve(phrase string) (string, bool)
}

// chatPlaces asks the gazetteer only about phrases a message may use as a place: words of the
// conversation ("in", "me", "or" are also state codes; "Why" and "Reading" are towns) are not
// places however the gazetteer reads them. Without a gazetteer nothing is a place.
type chatPlaces struct{ g Gazetteer }

// maxPlaceWords bounds a place phrase's words before its state ("Salt Lake City, UT").
const maxPlaceWords = 4

func (c chatPlaces) Resolve(phrase string) (string, bool) {
	p := strings.Join(strings.Fields(strings.Trim(phrase, " ,.?!;:-–—")), " ")
	if c.g == nil || p == "" {
		return "", false
	}
	city, _, _ := strings.Cut(p, ",")
	words := strings.Fields(strings.ToLower(city))
	if len(words) > maxPlaceWords || notPlaceWord(words) {
		return "", false
	}
	if len(p) == 2 && p != strings.ToUpper(p) {
		return "", false // a two-letter code counts only in capitals: "in" and "me" are words
	}
	return c.g.Resolve(p)
}

func notPlaceWord(words []string) bool {
	for _, w := range words {
		if notPlace[w] {
			return true
		}
	}
	return false
}

var notPlace = setOf(`my the this that it general total month week plan score health usage leads why more
	detail details order short case use future fact time mind you me reviews review in near for of
	and or to with at from leads are our is was were be been am do does did can could would should
	will please some any all find get give us them their there here now today what which who how
	when where`)
