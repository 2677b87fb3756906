package geo

import (
	"errors"
	"strings"
)

// ErrBadLocation says a location string is none of the accepted shapes.
var ErrBadLocation = errors.New(`must be a city, "City, ST", a US state name or code, or a 5-digit ZIP code`)

// maxAlternatives bounds the other places of a name a resolution offers.
const maxAlternatives = 5

// miss is a location string that names no known place: the city it was read as (normalised, and
// as written) and its state, or the ZIP code, for the suggestions.
type miss struct {
	input, city, raw, state, zip string
}

// Resolve understands a location as people write it: "Austin TX", "Austin, TX", "Austin, Texas",
// "Austin, TX 78701", "Austin, TX, USA", "78701", "78701-1234", "Texas", "TX", "NYC", "Saint
// Louis, MO", "St. Louis", "Washington, D.C.", "Queens", "Harlem, NY", in any case and with or
// without accents. A ZIP code wins over the city it is written with; a name without a state is
// the largest place of that name (a city before a section of one), and the others are offered;
// a lone state name or code is the state, except "LA", which is Los Angeles. The empty string is
// anywhere. Anything else is an *UnknownPlaceError, or ErrBadLocation when it is not even shaped
// like a place.
func (g *Gazetteer) Resolve(s string) (Resolved, error) {
	r, m, err := g.read(s)
	switch {
	case err != nil:
		return Resolved{}, err
	case m == nil:
		return r, nil
	case m.zip != "":
		return Resolved{}, &UnknownPlaceError{Input: m.input, Suggestions: g.nearZIPs(m.zip)}
	}
	return Resolved{}, g.unknown(m.input, m.city, m.raw, m.state)
}

// Find is Resolve without the refusal: whether s names a place, at no cost for suggestions
// (the assistant asks it of every phrase that may be a place).
func (g *Gazetteer) Find(s string) (Resolved, bool) {
	r, m, err := g.read(s)
	return r, err == nil && m == nil && s != ""
}

func (g *Gazetteer) read(s string) (Resolved, *miss, error) {
	s = collapseSpaces(s)
	if s == "" {
		return Resolved{}, nil, nil
	}
	if len(s) > 120 {
		return Resolved{}, nil, ErrBadLocation
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
				return Resolved{Location: Location{ZIP: z.Code}, Name: z.Code + " (" + z.City + ", " + z.State + ")", Point: &p}, nil, nil
			}
			if len(parts) == 1 && n == 1 {
				return Resolved{}, &miss{input: s, zip: m[1]}, nil
			}
			parts[len(parts)-1] = strings.Join(last[:n-1], " ")
			if parts[len(parts)-1] == "" {
				parts = parts[:len(parts)-1]
			}
		}
	}
	if len(parts) == 0 {
		return Resolved{}, nil, ErrBadLocation
	}
	whole := fold(strings.Join(parts, " "))
	if whole == "" {
		return Resolved{}, nil, ErrBadLocation
	}
	if a, ok := aliases[whole]; ok {
		return g.city(a[0], a[1])
	}
	if a, ok := aliasByKey[key(whole)]; ok {
		return g.city(a[0], a[1])
	}
	if len(parts) == 1 {
		if code, ok := stateCodeKey(whole); ok {
			return Resolved{Location: Location{State: code}, Name: usStates[code]}, nil, nil
		}
	}
	raw, state := parts[0], ""
	switch {
	case len(parts) >= 2:
		code, ok := stateCodeKey(fold(strings.Join(parts[1:], " ")))
		if !ok {
			return Resolved{}, &miss{input: s, city: key(raw), raw: raw}, nil
		}
		state = code
	default:
		// No comma: the last one to three words may be the state ("Austin TX", "Salt Lake City
		// Utah", "Washington District of Columbia"), when the rest is a place of it or nothing
		// is a place of the whole ("Aberdeen-Amory MS" is then refused within Mississippi).
		ws := strings.Fields(raw)
		var first *miss
		for n := min(3, len(ws)-1); n >= 1; n-- {
			if code, ok := stateCodeKey(fold(strings.Join(ws[len(ws)-n:], " "))); ok {
				c := strings.Join(ws[:len(ws)-n], " ")
				if _, _, found := g.place(c, code); found || aliasIn(c, code) {
					raw, state, first = c, code, nil
					break
				}
				if first == nil {
					first = &miss{input: s, city: key(c), raw: c, state: code}
				}
			}
		}
		if _, _, found := g.place(raw, ""); first != nil && !found {
			return Resolved{}, first, nil
		}
	}
	if a, ok := aliasByKey[key(raw)]; ok && (state == "" || state == a[1]) {
		return g.city(a[0], a[1])
	}
	n, others, ok := g.place(raw, state)
	if !ok {
		return Resolved{}, &miss{input: s, city: key(raw), raw: raw, state: state}, nil
	}
	r := resolvedPlace(n.p)
	for _, o := range others {
		if len(r.Alternatives) == maxAlternatives {
			break
		}
		if o.p != n.p && !o.alt {
			r.Alternatives = append(r.Alternatives, o.p.Name())
		}
	}
	return r, nil, nil
}

// place finds what a name written as raw means in a state ("" for any state, by the ambiguity
// rule, with the other places of the name): the name itself, else the first town of a pair
// joined by a hyphen ("Dallas-Fort Worth"), else the name without a trailing "City" ("Pecos City").
func (g *Gazetteer) place(raw, state string) (named, []named, bool) {
	for _, k := range readings(raw) {
		if state != "" {
			if p, ok := g.inState(k, state); ok {
				return named{p: p}, nil, true
			}
			continue
		}
		if ps := g.byKey[k]; len(ps) > 0 {
			return ps[0], ps[1:], true
		}
	}
	return named{}, nil, false
}

// readings are the keys a name written as raw may mean, the name itself first.
func readings(raw string) []string {
	k := key(raw)
	out := []string{k}
	if first, _, ok := strings.Cut(raw, "-"); ok && strings.TrimSpace(first) != "" {
		out = append(out, key(first))
	}
	if c := strings.TrimSuffix(k, "city"); c != k && c != "" {
		out = append(out, c)
	}
	return out
}

func aliasIn(city, state string) bool {
	a, ok := aliasByKey[key(city)]
	return ok && a[1] == state
}

func (g *Gazetteer) city(name, state string) (Resolved, *miss, error) {
	p, ok := g.inState(key(name), state)
	if !ok {
		return Resolved{}, &miss{input: name + ", " + state, city: key(name), raw: name, state: state}, nil
	}
	return resolvedPlace(p), nil, nil
}

func resolvedPlace(p *Place) Resolved {
	c := p.Center
	return Resolved{Location: Location{City: p.City, State: p.State}, Name: p.Name(), Point: &c, NearMiles: p.Reach(), Population: p.Population}
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

func collapseSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }
