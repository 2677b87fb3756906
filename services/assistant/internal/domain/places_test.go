package domain_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/adapters/places/placestest"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// recognize reads a message as the chat does, with the real place data.
var recognize = placestest.Recognize

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

// Issue 39: the chat finds plumbers wherever the finder does.
func TestTheChatFindsPlumbersInPflugervilleAndQueens(t *testing.T) {
	t.Parallel()
	for msg, where := range map[string]string{
		"find plumbers in Pflugerville, TX": "Pflugerville, TX", "find plumbers in Pflugerville": "Pflugerville",
		"find me plumbers in Queens": "Queens", "can you find plumbers in Queens, NY?": "Queens, NY",
	} {
		turn := recognize(msg, domain.State{}, domain.Slots{})
		require.Equal(t, domain.IntentFindLeads, turn.Intent, msg)
		require.Equal(t, domain.Slots{Vertical: "plumbing", Location: where}, turn.Slots, msg)
		require.True(t, turn.Permission().Allows(domain.ActionFindLeads, turn.Slots), msg)
	}
}
