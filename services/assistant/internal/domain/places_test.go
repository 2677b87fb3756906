package domain_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/adapters/places"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// gazetteer is the product's, as the chat is wired with it (the domain's tests read real places).
var gazetteer = func() places.Places {
	p, err := places.Load()
	if err != nil {
		panic(err)
	}
	return p
}()

// recognize reads a message as the chat does.
var recognize = domain.Recognizer{Places: gazetteer}.Recognize

func TestOnlyResolvedPhrasesArePlaces(t *testing.T) {
	t.Parallel()
	find := func(text string) string {
		return recognize("find plumbers in "+text, domain.State{}, domain.Slots{}).Slots.Location
	}
	for text, want := range map[string]string{
		"Austin": "Austin", "austin": "austin", "Austin, TX": "Austin, TX", "Springfield, Illinois": "Springfield, Illinois",
		"78701": "78701", "Texas": "Texas", "TX": "TX", "new york": "new york", "Boise": "Boise",
		"Pflugerville, TX": "Pflugerville, TX", "Pflugerville": "Pflugerville", "Queens": "Queens",
		"Bronx": "Bronx", "Harlem, NY": "Harlem, NY",
	} {
		require.Equal(t, want, find(text), text)
	}
	for _, text := range []string{"reviews", "my area", "in", "me", "tx", "or", ""} {
		require.Empty(t, find(text), text)
	}
	require.Empty(t, domain.Recognizer{}.Recognize("find plumbers in Austin", domain.State{}, domain.Slots{}).Slots.Location,
		"without a gazetteer nothing is a place")
}
