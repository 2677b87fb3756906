package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

func TestRecognizeFreshMessages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		msg    string
		intent domain.Intent
		slots  domain.Slots
		why    bool
	}{
		{"Find plumbers in Austin, TX", domain.IntentFindLeads, domain.Slots{Vertical: "plumbing", Location: "Austin, TX"}, false},
		{"any dentist leads near 78701?", domain.IntentFindLeads, domain.Slots{Vertical: "dental", Location: "78701"}, false},
		{"show me roofing companies in denver please", domain.IntentFindLeads, domain.Slots{Vertical: "roofing", Location: "denver"}, false},
		{"find taxidermy leads in Boise", domain.IntentFindLeads, domain.Slots{Vertical: "taxidermy", Location: "Boise"}, false},
		{"find me leads in Boise", domain.IntentFindLeads, domain.Slots{Vertical: "", Location: "Boise"}, false},
		{"How is my health score?", domain.IntentHealth, domain.Slots{}, false},
		{"why is my health score so low", domain.IntentHealth, domain.Slots{}, true},
		{"Am I close to my plan limits?", domain.IntentUsage, domain.Slots{}, false},
		{"which clients are at risk of churning", domain.IntentChurn, domain.Slots{}, false},
		{"what should I do next to grow?", domain.IntentGrowth, domain.Slots{}, false},
		{"how many leads do I have", domain.IntentLeadsSheet, domain.Slots{}, false},
		{"hello there", domain.IntentGreeting, domain.Slots{}, false},
		{"what can you do?", domain.IntentHelp, domain.Slots{}, false},
		{"the weather is nice", domain.IntentOutOfScope, domain.Slots{}, false},
	}
	for _, tc := range cases {
		got := recognize(tc.msg, domain.State{}, domain.Slots{})
		require.Equal(t, tc.intent, got.Intent, tc.msg)
		if tc.intent == domain.IntentFindLeads {
			require.Equal(t, tc.slots, got.Slots, tc.msg)
		}
		require.Equal(t, tc.why, got.Why, tc.msg)
	}
}

func TestRecognizeResolvesFollowUpsFromTheSession(t *testing.T) {
	t.Parallel()
	leads := domain.State{Intent: domain.IntentFindLeads, Slots: domain.Slots{Vertical: "plumbing", Location: "Austin, TX"}}

	got := recognize("and in Dallas?", leads, domain.Slots{})
	require.Equal(t, domain.Turn{Intent: domain.IntentFindLeads, Slots: domain.Slots{Vertical: "plumbing", Location: "Dallas"}, FollowUp: true, Request: true}, got)

	got = recognize("what about roofers?", leads, domain.Slots{})
	require.Equal(t, domain.Turn{Intent: domain.IntentFindLeads, Slots: domain.Slots{Vertical: "roofing", Location: "Austin, TX"}, FollowUp: true, Request: true}, got)

	got = recognize("what about Denver?", leads, domain.Slots{})
	require.Equal(t, domain.Turn{Intent: domain.IntentFindLeads, Slots: domain.Slots{Vertical: "plumbing", Location: "Denver"}, FollowUp: true, Request: true}, got)

	got = recognize("why is that?", domain.State{Intent: domain.IntentHealth}, domain.Slots{})
	require.Equal(t, domain.Turn{Intent: domain.IntentHealth, Why: true, FollowUp: true}, got)

	// Without a previous turn the same words are not a lead search.
	require.Equal(t, domain.IntentOutOfScope, recognize("why is that?", domain.State{}, domain.Slots{}).Intent)
	require.Equal(t, domain.IntentOutOfScope, recognize("and in Dallas?", domain.State{}, domain.Slots{}).Intent)
}

func TestRecognizeTakesSlotHintsFromTheClientContext(t *testing.T) {
	t.Parallel()
	got := recognize("find me some leads", domain.State{}, domain.Slots{Vertical: "hvac", Location: "Phoenix, AZ"})
	require.Equal(t, domain.IntentFindLeads, got.Intent)
	require.Equal(t, domain.Slots{Vertical: "hvac", Location: "Phoenix, AZ"}, got.Slots)
}

// Issue 39, item 4: a request phrased as a question searches; a message that only names a search
// is still offered.
func TestARequestPhrasedAsAQuestionSearches(t *testing.T) {
	t.Parallel()
	vets := domain.Slots{Vertical: "veterinary", Location: "Columbus, Ohio"}
	roofers := domain.Slots{Vertical: "roofing", Location: "Denver"}
	plumbers := domain.Slots{Vertical: "plumbing", Location: "Austin"}
	for msg, want := range map[string]domain.Slots{
		"Veterinarians in Columbus, Ohio - can you find some?": vets,
		"roofers in Denver, can you find some?":                roofers,
		"plumbers in Austin - could you pull a few?":           plumbers,
		"Roofers in Denver. Find some?":                        roofers,
		"would you mind finding roofers in Denver?":            roofers,
		"can I get a list of plumbers in Austin?":              plumbers,
		"is it possible to find roofers in Denver?":            roofers,
		"could you get me plumbers in Austin?":                 plumbers,
		"I wonder whether you could pull roofers in Denver":    roofers,
		"do you think you can get me plumbers in Austin?":      plumbers,
		"would it be possible to show roofers in Denver?":      roofers,
	} {
		got := recognize(msg, domain.State{}, domain.Slots{})
		assert.Equal(t, domain.IntentFindLeads, got.Intent, msg)
		assert.True(t, got.Request, msg)
		assert.Equal(t, want, got.Slots, msg)
	}

	// "can you find them?" after an offer runs the offered search.
	offered := domain.State{}.After(recognize("plumbers in Austin are our competitors", domain.State{}, domain.Slots{}), false, nil)
	got := recognize("ok, can you find them?", offered, domain.Slots{})
	require.Equal(t, domain.IntentFindLeads, got.Intent)
	require.True(t, got.Request)
	require.Equal(t, plumbers, got.Slots)

	// With nothing to refer to, it asks which kind of business (no vertical to search).
	got = recognize("can you find some?", domain.State{}, domain.Slots{})
	require.Equal(t, domain.IntentFindLeads, got.Intent)
	require.Empty(t, got.Slots.Vertical)
}

func TestAMessageThatOnlyNamesASearchIsOffered(t *testing.T) {
	t.Parallel()
	offered := domain.State{}.After(recognize("plumbers in Austin are our competitors", domain.State{}, domain.Slots{}), false, nil)
	for _, msg := range []string{"plumbers in Austin", "plumbers in Austin?", "can you help with roofers in Denver?", "plumbers in Austin are my competitors"} {
		got := recognize(msg, domain.State{}, domain.Slots{})
		require.False(t, got.Request, msg)
		require.NotEmpty(t, got.Slots.Vertical, "%s: the search is named, so it is offered", msg)
	}
	require.Equal(t, domain.IntentInform, recognize("roofers in Denver would need websites", domain.State{}, domain.Slots{}).Intent)
	for _, msg := range []string{"can you show me how this works?", "could you explain that?"} {
		got := recognize(msg, offered, domain.Slots{})
		require.False(t, got.Intent == domain.IntentFindLeads && got.Permission().Allows(domain.ActionFindLeads, got.Slots), msg)
	}
}
