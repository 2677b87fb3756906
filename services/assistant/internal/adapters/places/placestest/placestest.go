// Package placestest reads messages as the chat does, with the product's gazetteer, for the tests
// of the domain, the use cases and the advisor.
package placestest

import (
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/places"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// Places is the product's gazetteer, as the service wires it into the chat.
var Places domain.Gazetteer = func() domain.Gazetteer {
	p, err := places.Load()
	if err != nil {
		panic(err) // the embedded data is broken: no test can run
	}
	return p
}()

var recognizer = domain.Recognizer{Places: Places}

// Recognize is domain.Recognizer.Recognize with the real place data.
func Recognize(message string, prev domain.State, hints domain.Slots) domain.Turn {
	return recognizer.Recognize(message, prev, hints)
}
