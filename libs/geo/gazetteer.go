// Package geo is the product's one geography: US places as people write them (cities, towns,
// census-designated places, boroughs and neighbourhoods, ZIP codes and states) resolved against
// real place data, with no I/O. Package geodata loads the embedded data into a Gazetteer.
package geo

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ZIPCode is one row of the postal data: a ZIP code, the place name it is addressed to and its point.
type ZIPCode struct {
	Code, State, City string
	Lat, Lng          float64
}

// Town is one row of the populated-places data: a city, town, census-designated place or section
// of a city, with its population, point and the other ways its name is written.
type Town struct {
	Name, State string
	Population  int
	Lat, Lng    float64
	Part        bool // a section of a city: a borough or a neighbourhood
	Alternates  []string
}

// Place is what a name resolves to: its name (the postal one when it has one, which is how
// catalog rows are addressed), its state and centre, its population (0 when it is under the
// populated-places data's 1,000 people), how many ZIP codes are addressed to its name (0: none,
// its businesses are addressed to a neighbouring town's name) and whether it is a section of a city.
type Place struct {
	City, State string
	Center      Point
	Population  int
	ZIPs        int
	Part        bool
}

// Name is "City, ST".
func (p *Place) Name() string { return p.City + ", " + p.State }

// Densities that size the reach of a place with no postal name (people a square mile).
const (
	townDensity    = 4000
	sectionDensity = 20000
	minReachMiles  = 1
	maxReachMiles  = 8
)

// Reach is how far around its centre a place with no postal name of its own is searched: the
// radius of a disc holding its population at an urban density (20,000 a square mile for a section
// of a city, 4,000 for a town), by half miles from 1 to 8. A postal place is searched by name: 0.
func (p *Place) Reach() float64 {
	if p.ZIPs > 0 {
		return 0
	}
	density := float64(townDensity)
	if p.Part {
		density = sectionDensity
	}
	r := math.Round(2*math.Sqrt(float64(p.Population)/(math.Pi*density))) / 2
	return min(max(r, minReachMiles), maxReachMiles)
}

// Location narrows a search to a ZIP code, a city (optionally in a state) or a state. The zero
// Location means anywhere.
type Location struct {
	City  string // as the data writes it; matched case-insensitively
	State string // USPS code
	ZIP   string // five digits
}

// Resolved is a location string understood through the gazetteer: what to search (Location),
// which place that is in words (Name), the point a radius search is centred on (a city or ZIP
// code), how far around it a place with no postal name is searched (NearMiles, else 0), the
// other places of the name when it was written without a state (largest first) and the place's
// population (0 for a ZIP code, a state or a place under 1,000 people).
type Resolved struct {
	Location     Location
	Name         string
	Point        *Point
	NearMiles    float64
	Alternatives []string
	Population   int
}

// UnknownPlaceError says a location string names no place the gazetteer knows; Suggestions are
// up to three "City, ST" (or ZIP) names close to it.
type UnknownPlaceError struct {
	Input       string
	Suggestions []string
}

func (e *UnknownPlaceError) Error() string {
	if len(e.Suggestions) == 0 {
		return fmt.Sprintf("no US place is called %q", e.Input)
	}
	quoted := make([]string, len(e.Suggestions))
	for i, p := range e.Suggestions {
		quoted[i] = strconv.Quote(p)
	}
	return fmt.Sprintf("no US place is called %q; did you mean %s?", e.Input, strings.Join(quoted, " or "))
}

// Gazetteer resolves place names as people write them against real place data. It is read-only
// after NewGazetteer and safe for concurrent use.
type Gazetteer struct {
	zips    []ZIPCode          // by code: a sorted slice is half a map's memory
	byKey   map[string][]named // normalised name → places, the ambiguity rule's choice first
	places  int                // places (name and state pairs)
	keys    []string           // every place's own name, for suggestions
	byFirst map[byte][]string  // keys by first byte
}

// named is a place under one of its names; alt marks another name than its own.
type named struct {
	p   *Place
	alt bool
}

// mergeMiles is how near a town's point must be to the centre of the ZIP codes of its name and
// state for the two to be one place.
const mergeMiles = 25

// NewGazetteer joins the postal data and the populated places. A state's ZIP codes grouped by
// normalised name are its postal places; a town of the same name and state within mergeMiles is
// that place (its population and point are the town's), any other town is a place of its own.
// Only the largest town of a name in a state is kept (a city before a section of one). Other
// names of a town never take a name that a place of its state has.
func NewGazetteer(zips []ZIPCode, towns []Town) *Gazetteer {
	g := &Gazetteer{zips: byCode(zips), byKey: map[string][]named{}}
	places := g.postal()
	largest := map[string]*Town{}
	for i := range towns {
		t := &towns[i]
		pair := key(t.Name) + "|" + t.State
		if b := largest[pair]; b == nil || (b.Part && !t.Part) || (b.Part == t.Part && t.Population > b.Population) {
			largest[pair] = t
		}
	}
	placeOf := map[*Town]*Place{}
	for i := range towns { // in the data's order, so that the result does not depend on a map's
		t := &towns[i]
		pair := key(t.Name) + "|" + t.State
		if largest[pair] != t {
			continue
		}
		at := Point{t.Lat, t.Lng}
		if p := places[pair]; p != nil {
			if DistanceMiles(at, p.Center) <= mergeMiles {
				p.Population, p.Center = t.Population, at
				placeOf[t] = p
			}
			continue // far away: another place of the name, and the postal one keeps it
		}
		p := &Place{City: t.Name, State: t.State, Center: at, Population: t.Population, Part: t.Part}
		places[pair], placeOf[t] = p, p
		g.add(key(t.Name), p, false)
	}
	for i := range towns {
		p := placeOf[&towns[i]]
		if p == nil {
			continue
		}
		for _, a := range towns[i].Alternates {
			pair := key(a) + "|" + p.State
			if places[pair] == nil {
				places[pair] = p
				g.add(key(a), p, true)
			}
		}
	}
	g.index()
	return g
}

// postal groups the ZIP codes into places by normalised name and state; a place is named the way
// most of its ZIP codes write it, and centred on their mean point.
func (g *Gazetteer) postal() map[string]*Place {
	type acc struct {
		place    *Place
		names    map[string]int
		lat, lng float64
	}
	accs := map[string]*acc{}
	places := map[string]*Place{}
	for _, z := range g.zips {
		k := key(z.City)
		pair := k + "|" + z.State
		a := accs[pair]
		if a == nil {
			a = &acc{place: &Place{State: z.State}, names: map[string]int{}}
			accs[pair], places[pair] = a, a.place
			g.add(k, a.place, false)
		}
		a.names[z.City]++
		a.place.ZIPs++
		a.lat += z.Lat
		a.lng += z.Lng
	}
	for _, a := range accs {
		best := ""
		for n, c := range a.names {
			if best == "" || c > a.names[best] || (c == a.names[best] && n < best) {
				best = n
			}
		}
		a.place.City = best
		a.place.Center = Point{a.lat / float64(a.place.ZIPs), a.lng / float64(a.place.ZIPs)}
	}
	return places
}

func (g *Gazetteer) add(k string, p *Place, alt bool) {
	if !alt {
		g.places++
	}
	g.byKey[k] = append(g.byKey[k], named{p, alt})
}

// index orders each name's places by the ambiguity rule: a place's own name before another name
// of a place, a city before a section of one, then the larger population, the more ZIP codes, and
// the state code first in the alphabet. Suggestions are drawn from the places' own names.
func (g *Gazetteer) index() {
	for k, ps := range g.byKey {
		slices.SortFunc(ps, func(a, b named) int {
			return cmp.Or(compareBool(a.alt, b.alt), compareBool(a.p.Part, b.p.Part),
				cmp.Compare(b.p.Population, a.p.Population), cmp.Compare(b.p.ZIPs, a.p.ZIPs), strings.Compare(a.p.State, b.p.State))
		})
		if !ps[0].alt {
			g.keys = append(g.keys, k)
		}
	}
	sort.Strings(g.keys)
	g.byFirst = map[byte][]string{}
	for _, k := range g.keys {
		g.byFirst[firstByte(k)] = append(g.byFirst[firstByte(k)], k)
	}
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Places returns how many places (name and state pairs) the gazetteer knows.
func (g *Gazetteer) Places() int { return g.places }

// inState is the place of a normalised name in a state: among the few states that have a place
// of the name, which costs less than a second index of every pair.
func (g *Gazetteer) inState(k, state string) (*Place, bool) {
	for _, n := range g.byKey[k] {
		if n.p.State == state {
			return n.p, true
		}
	}
	return nil, false
}

// Lookup finds the place of a name in a state ("" for any state, by the ambiguity rule).
func (g *Gazetteer) Lookup(city, state string) (Place, bool) {
	k := key(city)
	if state != "" {
		p, ok := g.inState(k, state)
		if !ok {
			return Place{}, false
		}
		return *p, true
	}
	if ps := g.byKey[k]; len(ps) > 0 {
		return *ps[0].p, true
	}
	return Place{}, false
}

// byCode is the ZIP codes sorted by code, the last row of a code kept.
func byCode(zips []ZIPCode) []ZIPCode {
	sorted := slices.Clone(zips)
	slices.SortStableFunc(sorted, func(a, b ZIPCode) int { return strings.Compare(a.Code, b.Code) })
	out := sorted[:0]
	for i, z := range sorted {
		if i+1 < len(sorted) && sorted[i+1].Code == z.Code {
			continue
		}
		out = append(out, z)
	}
	return slices.Clip(out)
}

// ZIP finds a ZIP code.
func (g *Gazetteer) ZIP(code string) (ZIPCode, bool) {
	i, ok := slices.BinarySearchFunc(g.zips, code, func(z ZIPCode, c string) int { return strings.Compare(z.Code, c) })
	if !ok {
		return ZIPCode{}, false
	}
	return g.zips[i], true
}
