package catalog

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// ZIPCode is one row of the place data: a ZIP code, the place it belongs to and its coordinate.
type ZIPCode struct {
	Code, State, City string
	Lat, Lng          float64
}

// Point is a coordinate in degrees.
type Point struct{ Lat, Lng float64 }

// Place is a city or town: its name as the data writes it, its state, the centre of its ZIP
// codes and how many ZIP codes it has (the ambiguity rule's measure of size).
type Place struct {
	City, State string
	Center      Point
	ZIPs        int
}

// Name is "City, ST".
func (p Place) Name() string { return p.City + ", " + p.State }

// Resolved is a location string understood through the gazetteer: what to search (Location),
// which place that is in words (Name, the reply's resolvedLocation) and, for a city or ZIP code,
// the point a radius search is centred on.
type Resolved struct {
	Location Location
	Name     string
	Point    *Point
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
	zips    []ZIPCode           // by code: a sorted slice is half a map's memory
	byKey   map[string][]*Place // normalised city name → places, the ambiguity rule's choice first
	places  int                 // city and state pairs
	keys    []string            // every key, for suggestions
	byFirst map[byte][]string   // keys by first byte
}

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
		case r == '.' || r == '\'' || r == '’':
			return -1
		case r == '-' || r == ',' || r == '/':
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// key normalises a city name: folded, and the abbreviations place names are written with spelt
// out, so "St. Louis", "Saint Louis" and "saint louis" are one key. A one-word name is kept.
func key(s string) string {
	words := strings.Fields(fold(s))
	if len(words) > 1 {
		for i, w := range words {
			if x, ok := wordExpansions[w]; ok {
				words[i] = x
			}
		}
	}
	return strings.Join(words, " ")
}

// NewGazetteer indexes the place data. Places are a state's ZIP codes grouped by normalised city
// name; when several states have a place of the name, the one with the most ZIP codes is chosen
// (ties: the state code first in the alphabet).
func NewGazetteer(zips []ZIPCode) *Gazetteer {
	g := &Gazetteer{zips: byCode(zips), byKey: map[string][]*Place{}}
	type acc struct {
		place    *Place
		names    map[string]int
		lat, lng float64
	}
	accs := map[string]*acc{}
	for _, z := range g.zips {
		k := key(z.City)
		pair := k + "|" + z.State
		a := accs[pair]
		if a == nil {
			a = &acc{place: &Place{State: z.State}, names: map[string]int{}}
			accs[pair] = a
			g.places++
			g.byKey[k] = append(g.byKey[k], a.place)
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
	for k, ps := range g.byKey {
		sort.Slice(ps, func(i, j int) bool {
			if ps[i].ZIPs != ps[j].ZIPs {
				return ps[i].ZIPs > ps[j].ZIPs
			}
			return ps[i].State < ps[j].State
		})
		g.keys = append(g.keys, k)
	}
	sort.Strings(g.keys)
	g.byFirst = map[byte][]string{}
	for _, k := range g.keys {
		g.byFirst[firstByte(k)] = append(g.byFirst[firstByte(k)], k)
	}
	return g
}

// Places returns how many places (city and state pairs) the gazetteer knows.
func (g *Gazetteer) Places() int { return g.places }

// inState is the place of a normalised city name in a state: among the few states that have a
// place of the name, which costs less than a second index of every pair.
func (g *Gazetteer) inState(k, state string) (*Place, bool) {
	for _, p := range g.byKey[k] {
		if p.State == state {
			return p, true
		}
	}
	return nil, false
}

// Lookup finds the place of a city in a state ("" for any state, by the ambiguity rule).
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
		return *ps[0], true
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

// Resolve understands a location as people write it: "Austin TX", "Austin, TX", "Austin, Texas",
// "Austin, TX 78701", "Austin, TX, USA", "78701", "78701-1234", "Texas", "TX", "NYC", "Saint
// Louis, MO", "St. Louis", "Washington, D.C.", in any case and with or without accents. A ZIP code
// wins over the city it is written with; a city without a state is the one with the most ZIP codes;
// a lone state name or code is the state, except "LA", which is Los Angeles. The empty string is
// anywhere. Anything else is an *UnknownPlaceError, or ErrBadLocation when it is not even shaped
// like a place.
func (g *Gazetteer) Resolve(s string) (Resolved, error) {
	s = collapseSpaces(s)
	if s == "" {
		return Resolved{}, nil
	}
	if len(s) > 120 {
		return Resolved{}, ErrBadLocation
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	// A trailing country ("USA", "United States") says nothing more.
	if len(parts) > 1 && countryNames[fold(parts[len(parts)-1])] {
		parts = parts[:len(parts)-1]
	}
	words := strings.Fields(strings.Join(parts, " , "))
	if len(words) > 1 && countryNames[fold(words[len(words)-1])] && len(parts) == 1 {
		parts[0] = strings.Join(words[:len(words)-1], " ")
	}
	// A ZIP code, alone or at the end ("Austin, TX 78701").
	last := strings.Fields(parts[len(parts)-1])
	if n := len(last); n > 0 {
		if m := zipAny.FindStringSubmatch(last[n-1]); m != nil {
			if z, ok := g.ZIP(m[1]); ok {
				p := Point{z.Lat, z.Lng}
				return Resolved{Location: Location{ZIP: z.Code}, Name: z.Code + " (" + z.City + ", " + z.State + ")", Point: &p}, nil
			}
			if len(parts) == 1 && n == 1 {
				return Resolved{}, &UnknownPlaceError{Input: s, Suggestions: g.nearZIPs(m[1])}
			}
			parts[len(parts)-1] = strings.Join(last[:n-1], " ")
			if parts[len(parts)-1] == "" {
				parts = parts[:len(parts)-1]
			}
		}
	}
	if len(parts) == 0 {
		return Resolved{}, ErrBadLocation
	}
	whole := fold(strings.Join(parts, " "))
	if whole == "" {
		return Resolved{}, ErrBadLocation
	}
	if a, ok := aliases[whole]; ok {
		return g.city(a[0], a[1])
	}
	if a, ok := aliases[key(whole)]; ok {
		return g.city(a[0], a[1])
	}
	if len(parts) == 1 {
		if code, ok := stateCodeKey(whole); ok {
			return Resolved{Location: Location{State: code}, Name: usStates[code]}, nil
		}
	}
	var city, state string
	switch {
	case len(parts) >= 2:
		code, ok := stateCodeKey(fold(strings.Join(parts[1:], " ")))
		if !ok {
			return Resolved{}, g.unknown(s, key(parts[0]), "")
		}
		city, state = key(parts[0]), code
	default:
		// No comma: the last one to three words may be the state ("Austin TX", "Salt Lake City
		// Utah", "Washington District of Columbia").
		ws := strings.Fields(whole)
		for n := min(3, len(ws)-1); n >= 1; n-- {
			if code, ok := stateCodeKey(strings.Join(ws[len(ws)-n:], " ")); ok {
				c := key(strings.Join(ws[:len(ws)-n], " "))
				if _, found := g.inState(c, code); found || aliasIn(c, code) {
					city, state = c, code
					break
				}
			}
		}
		if city == "" {
			city = key(whole)
		}
	}
	if a, ok := aliases[city]; ok && (state == "" || state == a[1]) {
		return g.city(a[0], a[1])
	}
	if state != "" {
		if p, ok := g.inState(city, state); ok {
			return resolvedPlace(p), nil
		}
		return Resolved{}, g.unknown(s, city, state)
	}
	if ps := g.byKey[city]; len(ps) > 0 {
		return resolvedPlace(ps[0]), nil
	}
	return Resolved{}, g.unknown(s, city, "")
}

func aliasIn(city, state string) bool {
	a, ok := aliases[city]
	return ok && a[1] == state
}

func (g *Gazetteer) city(name, state string) (Resolved, error) {
	p, ok := g.inState(key(name), state)
	if !ok {
		return Resolved{}, &UnknownPlaceError{Input: name + ", " + state}
	}
	return resolvedPlace(p), nil
}

func resolvedPlace(p *Place) Resolved {
	c := p.Center
	return Resolved{Location: Location{City: p.City, State: p.State}, Name: p.Name(), Point: &c}
}

// stateCodeKey is StateCode over a normalised key ("d c" and "dc" are DC).
func stateCodeKey(k string) (string, bool) {
	if k == "d c" {
		return "DC", true
	}
	if code, ok := StateCode(k); ok {
		return code, true
	}
	return "", false
}

// unknown builds the refusal with up to three suggestions: the places whose normalised names are
// fewest edits away (in the named state first), larger places first among equals.
func (g *Gazetteer) unknown(input, city, state string) error {
	maxD := max(2, len(city)/2)
	var cs []cand
	// Names that begin with the same letter first (a typo is rarely the first letter, and this
	// reads a twentieth of the names), every name when none of those is close.
	keys := g.byFirst[firstByte(city)]
	for pass := 0; pass < 2; pass++ {
		cs = g.candidates(city, state, keys, maxD, cs)
		if len(cs) > 0 {
			break
		}
		keys = g.keys
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		if cs[i].p.ZIPs != cs[j].p.ZIPs {
			return cs[i].p.ZIPs > cs[j].p.ZIPs
		}
		return cs[i].p.Name() < cs[j].p.Name()
	})
	// One suggestion a name (its largest place), so that three Atlantics do not hide Atlanta.
	e := &UnknownPlaceError{Input: input, Suggestions: []string{}}
	seen := map[string]bool{}
	for _, c := range cs {
		if len(e.Suggestions) == 3 {
			break
		}
		if k := key(c.p.City); !seen[k] {
			seen[k] = true
			e.Suggestions = append(e.Suggestions, c.p.Name())
		}
	}
	return e
}

type cand struct {
	p *Place
	d int
}

// candidates appends the places of keys within maxD edits of city (one more outside state).
func (g *Gazetteer) candidates(city, state string, keys []string, maxD int, cs []cand) []cand {
	for _, k := range keys {
		if abs(len(k)-len(city)) > maxD {
			continue
		}
		d := editDistance(city, k, maxD)
		if d > maxD {
			continue
		}
		for _, p := range g.byKey[k] {
			dd := d
			if state != "" && p.State != state {
				dd++
			}
			cs = append(cs, cand{p, dd})
		}
	}
	return cs
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// nearZIPs suggests the known ZIP codes numerically nearest an unknown one: five-digit codes sort
// as their numbers, so they are among the three on either side of where it would be.
func (g *Gazetteer) nearZIPs(code string) []string {
	want, _ := strconv.Atoi(code) // five digits, checked by the caller
	at, _ := slices.BinarySearchFunc(g.zips, code, func(z ZIPCode, c string) int { return strings.Compare(z.Code, c) })
	near := slices.Clone(g.zips[max(at-3, 0):min(at+3, len(g.zips))])
	distance := func(z ZIPCode) int {
		n, _ := strconv.Atoi(z.Code)
		return abs(n - want)
	}
	slices.SortStableFunc(near, func(a, b ZIPCode) int { return distance(a) - distance(b) })
	out := []string{}
	for _, z := range near[:min(len(near), 3)] {
		out = append(out, z.Code+" ("+z.City+", "+z.State+")")
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, or more than limit when it exceeds it.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// EarthRadiusMiles is the mean radius used for distances.
const EarthRadiusMiles = 3958.8

// DistanceMiles is the great-circle distance between two points.
func DistanceMiles(a, b Point) float64 {
	const rad = math.Pi / 180
	dLat, dLng := (b.Lat-a.Lat)*rad, (b.Lng-a.Lng)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * EarthRadiusMiles * math.Asin(math.Min(1, math.Sqrt(h)))
}

// spellingVariants are the ways a catalog row may write the words place data spells out.
var spellingVariants = map[string][]string{
	"saint": {"st.", "st"}, "sainte": {"ste.", "ste"}, "fort": {"ft.", "ft"}, "mount": {"mt.", "mt"},
}

// CitySpellings is the lower-case ways a catalog row may write a city the gazetteer resolved:
// the name itself and, for Saint, Fort and Mount, the abbreviated forms ("saint louis", "st.
// louis", "st louis"). Most cities have one spelling.
func CitySpellings(city string) []string {
	out := []string{strings.ToLower(city)}
	words := strings.Fields(out[0])
	for i, w := range words {
		for _, v := range spellingVariants[w] {
			alt := append(append(append([]string{}, words[:i]...), v), words[i+1:]...)
			out = append(out, strings.Join(alt, " "))
		}
	}
	return out
}
