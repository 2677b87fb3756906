// Package places is the assistant's gazetteer: the product's one geography (libs/geo, the lead
// finder's) behind domain.Gazetteer, so that a place chat understands is one the finder searches.
package places

import (
	"fmt"
	"strings"

	"github.com/bizassist/bizassist/libs/geo"
	"github.com/bizassist/bizassist/libs/geo/geodata"
)

// Places answers whether a phrase names a US place.
type Places struct{ g *geo.Gazetteer }

// Load builds Places over the embedded place data (once per process).
func Load() (Places, error) {
	g, err := geodata.Load()
	if err != nil {
		return Places{}, fmt.Errorf("place data: %w", err)
	}
	return Places{g}, nil
}

// minLonePopulation is the smallest town a name written without its state is taken for: in a
// conversation a lone name is as often a person's ("Dana here", "I'm Marion") as a town's.
const minLonePopulation = 50000

// Resolve gives the phrase back as written when it names a place: the lead finder resolves it
// again and its reply says which place it searched.
func (p Places) Resolve(phrase string) (string, bool) {
	r, ok := p.g.Find(phrase)
	if !ok || (r.Location.City != "" && r.Population < minLonePopulation && !withState(phrase)) {
		return "", false
	}
	return phrase, true
}

// withState reports a phrase that ends with a state ("Dana, IN", "Dana Indiana").
func withState(phrase string) bool {
	if strings.Contains(phrase, ",") {
		return true
	}
	words := strings.Fields(phrase)
	for n := 1; n <= min(3, len(words)-1); n++ {
		if _, ok := geo.StateCode(strings.Join(words[len(words)-n:], " ")); ok {
			return true
		}
	}
	return false
}
