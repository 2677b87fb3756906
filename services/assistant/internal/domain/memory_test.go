package domain_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

func TestProfileKeepsTheNewestFactsAndEveryGoalOnce(t *testing.T) {
	t.Parallel()
	p := domain.Profile{Name: "Zoë", City: "Denver", Goals: []string{"double revenue"}}
	p = p.Merge(domain.Profile{City: "Boulder", Industry: "bakery", Goals: []string{"Double revenue", "hire a baker"}})
	require.Equal(t, domain.Profile{Name: "Zoë", City: "Boulder", Industry: "bakery", Goals: []string{"double revenue", "hire a baker"}}, p)
	for i := range 10 {
		p = p.Merge(domain.Profile{Goals: []string{string(rune('a' + i))}})
	}
	require.Len(t, p.Goals, 5, "the newest goals only")
	require.Equal(t, "j", p.Goals[4])
}

func TestOnlyResolvedPhrasesArePlaces(t *testing.T) {
	t.Parallel()
	places := domain.KnownPlaces{}
	for _, p := range []string{"Austin", "austin", "Austin, TX", "Springfield, Illinois", "78701", "Texas", "TX", "new york", "Boise"} {
		_, ok := places.Resolve(p)
		require.True(t, ok, p)
	}
	for _, p := range []string{"reviews", "what about reviews", "my area", "in", "me", "tx", "landscapers in Phoenix, AZ", ""} {
		_, ok := places.Resolve(p)
		require.False(t, ok, p)
	}
}

func TestAnOfferLastsOneTurnAndAYesRunsExactlyIt(t *testing.T) {
	t.Parallel()
	stated := domain.Recognize("plumbers in Austin are our competitors", domain.State{}, domain.Slots{})
	require.False(t, stated.Request)
	state := domain.State{}.After(stated, false, nil)
	require.Equal(t, &domain.Offer{Action: domain.ActionFindLeads, Slots: domain.Slots{Vertical: "plumbing", Location: "Austin"}}, state.Offer)

	yes := domain.Recognize("do it", state, domain.Slots{})
	perm := yes.Permission()
	require.True(t, perm.Allows(domain.ActionFindLeads, domain.Slots{Vertical: "plumbing", Location: "austin"}))
	require.False(t, perm.Allows(domain.ActionFindLeads, domain.Slots{Vertical: "plumbing", Location: "Dallas"}))
	require.False(t, perm.Allows(domain.ActionScoreLeads, domain.Slots{}))

	later := domain.State{}.After(stated, false, nil).After(domain.Recognize("thanks", state, domain.Slots{}), false, nil)
	require.Nil(t, later.Offer, "anything but a yes drops the offer")
	require.Equal(t, domain.IntentConfirm, domain.Recognize("yes", later, domain.Slots{}).Intent)
}
