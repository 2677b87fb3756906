package geo

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// unknown builds the refusal with up to three suggestions: the places whose normalised names are
// fewest edits away (in the named state first), larger places first among equals.
func (g *Gazetteer) unknown(input, city, raw, state string) error {
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
	if len(cs) == 0 {
		cs = g.leading(raw, state)
	}
	if len(cs) == 0 && state != "" {
		// A named state always has something to offer: its nearest names, however far.
		for _, c := range g.candidates(city, state, g.keys, len(city), nil) {
			if c.p.State == state {
				cs = append(cs, c)
			}
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		if cs[i].p.Population != cs[j].p.Population {
			return cs[i].p.Population > cs[j].p.Population
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

// leading is the place its first words name, for a name too long to be a typo of one
// ("Columbus-Starkville-West Point, MS" suggests Columbus, MS).
func (g *Gazetteer) leading(raw, state string) []cand {
	words := strings.Fields(fold(raw))
	for n := len(words) - 1; n >= 1; n-- {
		k := key(strings.Join(words[:n], " "))
		if p, ok := g.inState(k, state); ok {
			return []cand{{p, 0}}
		}
		if ps := g.byKey[k]; state == "" && len(ps) > 0 && !ps[0].alt {
			return []cand{{ps[0].p, 0}}
		}
	}
	return nil
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
		for _, n := range g.byKey[k] {
			if n.alt {
				continue
			}
			p := n.p
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
