package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
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

func TestAnOfferLastsOneTurnAndAYesRunsExactlyIt(t *testing.T) {
	t.Parallel()
	stated := recognize("plumbers in Austin are our competitors", domain.State{}, domain.Slots{})
	require.False(t, stated.Request)
	state := domain.State{}.After(stated, false, nil)
	require.Equal(t, &domain.Offer{Action: domain.ActionFindLeads, Slots: domain.Slots{Vertical: "plumbing", Location: "Austin"}}, state.Offer)

	yes := recognize("do it", state, domain.Slots{})
	perm := yes.Permission()
	require.True(t, perm.Allows(domain.ActionFindLeads, domain.Slots{Vertical: "plumbing", Location: "austin"}))
	require.False(t, perm.Allows(domain.ActionFindLeads, domain.Slots{Vertical: "plumbing", Location: "Dallas"}))
	require.False(t, perm.Allows(domain.ActionScoreLeads, domain.Slots{}))

	later := domain.State{}.After(stated, false, nil).After(recognize("thanks", state, domain.Slots{}), false, nil)
	require.Nil(t, later.Offer, "anything but a yes drops the offer")
	require.Equal(t, domain.IntentConfirm, recognize("yes", later, domain.Slots{}).Intent)
}

// rememberAfter replays a conversation through the recognizer, as the chat does, and returns
// what the session holds of the owner at the end.
func rememberAfter(messages ...string) domain.Profile {
	var state domain.State
	for _, m := range messages {
		state = state.After(recognize(m, state, domain.Slots{}), false, nil)
	}
	return state.Profile
}

// Issue 39, item 3: what the owner says of themselves is kept, in the forms people say it.
func TestWhatTheOwnerSaysIsRemembered(t *testing.T) {
	t.Parallel()
	flourish := domain.Profile{Business: "Flourish Patisserie"}
	cases := []struct {
		said []string
		want domain.Profile
	}{
		// A business name is a name: its words are neither misspelt keywords nor an industry.
		{[]string{"my shop is called Flourish Patisserie"}, flourish},
		{[]string{"my shop is called Flourish Patisserie", "how is my health score?"}, flourish},
		{[]string{"We're Flourish Patisserie, a bakery in Austin"}, domain.Profile{Business: "Flourish Patisserie", Industry: "bakery", City: "Austin"}},
		{[]string{"I run Flourish Patisserie"}, flourish},
		{[]string{"I'm the owner of Flourish Patisserie"}, flourish},
		{[]string{"Flourish Patisserie is my shop"}, flourish},
		{[]string{"the name of my business is Flourish Patisserie"}, flourish},
		{[]string{"this is Dana from Flourish Patisserie"}, domain.Profile{Name: "Dana", Business: "Flourish Patisserie"}},
		{[]string{"My name is Zoë and our shop is called Rise & Shine"}, domain.Profile{Name: "Zoë", Business: "Rise & Shine"}},
		{[]string{"my company is called Acme Roofing"}, domain.Profile{Business: "Acme Roofing", Industry: "roofing"}},
		// What is stated beside a request is kept too.
		{[]string{"I run a bakery in Denver. Find bakeries there."}, domain.Profile{Industry: "bakery", City: "Denver"}},
		{[]string{"I'm Dana. Can you find bakeries in Austin?"}, domain.Profile{Name: "Dana"}},
		{[]string{"Dana here"}, domain.Profile{Name: "Dana"}},
		{[]string{"roofing is my trade"}, domain.Profile{Industry: "roofing"}},
		{[]string{"my city is Denver"}, domain.Profile{City: "Denver"}},
		{[]string{"I'm based out of Denver"}, domain.Profile{City: "Denver"}},
		// Not a business name.
		{[]string{"we're a bakery in Austin"}, domain.Profile{Industry: "bakery", City: "Austin"}},
		{[]string{"I run a cleaning company"}, domain.Profile{Industry: "cleaning"}},
		{[]string{"We're looking for roofers in Denver"}, domain.Profile{}},
		{[]string{"I'm called Zoë"}, domain.Profile{Name: "Zoë"}},
		{[]string{"I run Facebook ads for my bakery"}, domain.Profile{Industry: "bakery"}},
		{[]string{"we run Google campaigns every month"}, domain.Profile{}},
		{[]string{"I run Flourish Patisserie in Denver with my sister"}, domain.Profile{Business: "Flourish Patisserie", City: "Denver"}},
		{[]string{"everyone calls me Bea"}, domain.Profile{Name: "Bea"}},
		{[]string{"our salon's name is Shear Joy"}, domain.Profile{Business: "Shear Joy"}},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, rememberAfter(tc.said...), "%q", tc.said)
	}
}

func TestTheNameOfTheShopIsRecalled(t *testing.T) {
	t.Parallel()
	state := domain.State{}.After(recognize("my shop is called Flourish Patisserie", domain.State{}, domain.Slots{}), false, nil)
	got := recognize("what's the name of my shop?", state, domain.Slots{})
	require.Equal(t, domain.IntentRecall, got.Intent)
	require.Equal(t, "business", got.Ask)
}
