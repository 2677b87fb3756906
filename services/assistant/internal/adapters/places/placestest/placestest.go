// Package placestest reads messages as the chat does, with the product's gazetteer, for the tests
// of the domain, the use cases and the advisor.
package placestest

import (
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/places"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

var recognizer = func() domain.Recognizer {
	p, err := places.Load()
	if err != nil {
		panic(err) // the embedded data is broken: no test can run
	}
	return domain.Recognizer{Places: p}
}()

// Recognize is domain.Recognizer.Recognize with the real place data.
func Recognize(message string, prev domain.State, hints domain.Slots) domain.Turn {
	return recognizer.Recognize(message, prev, hints)
}
