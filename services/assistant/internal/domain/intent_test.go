package domain_test

import (
	"testing"

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
		got := domain.Recognize(tc.msg, domain.State{}, domain.Slots{})
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

	got := domain.Recognize("and in Dallas?", leads, domain.Slots{})
	require.Equal(t, domain.Turn{Intent: domain.IntentFindLeads, Slots: domain.Slots{Vertical: "plumbing", Location: "Dallas"}, FollowUp: true, Request: true}, got)

	got = domain.Recognize("what about roofers?", leads, domain.Slots{})
	require.Equal(t, domain.Turn{Intent: domain.IntentFindLeads, Slots: domain.Slots{Vertical: "roofing", Location: "Austin, TX"}, FollowUp: true, Request: true}, got)

	got = domain.Recognize("what about Denver?", leads, domain.Slots{})
	require.Equal(t, domain.Turn{Intent: domain.IntentFindLeads, Slots: domain.Slots{Vertical: "plumbing", Location: "Denver"}, FollowUp: true, Request: true}, got)

	got = domain.Recognize("why is that?", domain.State{Intent: domain.IntentHealth}, domain.Slots{})
	require.Equal(t, domain.Turn{Intent: domain.IntentHealth, Why: true, FollowUp: true}, got)

	// Without a previous turn the same words are not a lead search.
	require.Equal(t, domain.IntentOutOfScope, domain.Recognize("why is that?", domain.State{}, domain.Slots{}).Intent)
	require.Equal(t, domain.IntentOutOfScope, domain.Recognize("and in Dallas?", domain.State{}, domain.Slots{}).Intent)
}

func TestRecognizeTakesSlotHintsFromTheClientContext(t *testing.T) {
	t.Parallel()
	got := domain.Recognize("find me some leads", domain.State{}, domain.Slots{Vertical: "hvac", Location: "Phoenix, AZ"})
	require.Equal(t, domain.IntentFindLeads, got.Intent)
	require.Equal(t, domain.Slots{Vertical: "hvac", Location: "Phoenix, AZ"}, got.Slots)
}
