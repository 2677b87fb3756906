package advisor_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/adapters/advisor"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/places/placestest"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// tools answers from fixed data; a non-nil err field makes that tool fail.
type tools struct {
	leads                       app.LeadResults
	health                      app.Health
	usage                       app.Usage
	searchErr, healthErr, usErr error
	searches                    []app.LeadSearch
}

func (f *tools) FindLeads(_ context.Context, q app.LeadSearch) (app.LeadResults, error) {
	f.searches = append(f.searches, q)
	return f.leads, f.searchErr
}
func (f *tools) RecentLeads(context.Context, int) ([]app.SheetLead, error) { return nil, nil }
func (f *tools) Health(context.Context) (app.Health, error)                { return f.health, f.healthErr }
func (f *tools) Usage(context.Context) (app.Usage, error)                  { return f.usage, f.usErr }
func (f *tools) ChurnRisks(context.Context, int, int) (app.Churn, error) {
	return app.Churn{}, &app.ToolError{Tool: "churn prediction", Status: 403, Code: "plan_upgrade_required", Message: "growth plan required"}
}

var ad = &advisor.Advisor{UpgradeURL: "https://bizassist.test/pricing"}

func reply(t *testing.T, f *tools, msg string, prev domain.State) app.Answer {
	t.Helper()
	a, err := ad.Reply(context.Background(), app.Conversation{Message: msg, State: prev, Plan: "free",
		Turn: placestest.Recognize(msg, prev, domain.Slots{})}, f)
	require.NoError(t, err)
	return a
}

func TestLeadSearchAsksForTheIndustryItDoesNotKnow(t *testing.T) {
	t.Parallel()
	f := &tools{}
	a := reply(t, f, "find me leads in Boise", domain.State{})
	require.Contains(t, a.Text, "Which kind of business should I look for in Boise?")
	require.Empty(t, f.searches)
	require.Equal(t, domain.Slots{Location: "Boise"}, a.State.Slots)

	// The place is remembered: naming the industry next completes the search.
	reply(t, f, "plumbers", a.State)
	require.Equal(t, []app.LeadSearch{{Industry: "plumbing", Location: "Boise", Limit: 5}}, f.searches)
}

func TestToolFailuresAreExplainedNotFatal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		want string
	}{
		{&app.ToolError{Tool: "lead finder", Status: 400, Message: "location: not a US city, state or ZIP"}, "I couldn't search for leads: location: not a US city, state or ZIP."},
		{&app.ToolError{Tool: "lead finder", Status: 402, Message: "lead_finder allowance spent", UpgradeURL: "https://x.test/up"}, "Upgrade for more: https://x.test/up"},
		{&app.ToolError{Tool: "lead finder", Message: "connection refused"}, "did not answer"},
		{errors.New("boom"), "did not answer"},
	}
	for _, tc := range cases {
		a := reply(t, &tools{searchErr: tc.err}, "find plumbers in Austin", domain.State{})
		require.Contains(t, a.Text, tc.want)
		require.NotContains(t, a.Text, "connection refused", "transport details stay out of replies")
	}
}

func TestAnUnrecognisedMessageKeepsTheThread(t *testing.T) {
	t.Parallel()
	prev := domain.State{Intent: domain.IntentHealth, Facts: map[string]string{"score": "42"}}
	a := reply(t, &tools{health: app.Health{Score: 42, Tier: "at_risk"}}, "the weather is nice", prev)
	require.Contains(t, a.Text, "outside what I can do")
	require.Contains(t, a.Text, "find leads when you ask", "it says what it can do instead")
	require.Equal(t, prev, a.State, "a later \"why?\" still refers to the health score")
	require.Equal(t, domain.IntentHelp, a.Topic)
}

func TestUsageNamesTheFeatureClosestToItsLimit(t *testing.T) {
	t.Parallel()
	f := &tools{usage: app.Usage{NearLimit: true, UsagePercent: 92, Features: map[string]app.FeatureUsage{
		"chat":         {Used: 46, Limit: 50, Pct: 92},
		"lead_finder":  {Used: 3, Limit: 10, Pct: 30},
		"lead_scoring": {Used: 7, Unlimited: true},
	}}}
	a := reply(t, f, "how much of my plan have I used?", domain.State{})
	require.Contains(t, a.Text, "chat 46 of 50 (92%); lead finder 3 of 10 (30%); lead scoring 7 (unlimited)")
	require.Contains(t, a.Text, "close to the limit on chat")
	require.Contains(t, a.Text, "https://bizassist.test/pricing", "the advisor's URL when analytics sends none")

	why := reply(t, f, "why?", a.State)
	require.Contains(t, why.Text, "Chat is the feature closest to its monthly limit: 46 of 50 used (92%)")
}

func TestChurnOnAPlanWithoutItOffersTheUpgrade(t *testing.T) {
	t.Parallel()
	a := reply(t, &tools{}, "who is likely to churn?", domain.State{})
	require.Contains(t, a.Text, "growth and full stack plans (you are on free)")
	require.Contains(t, a.Text, "https://bizassist.test/pricing")
}

// talk replays a conversation turn by turn as the chat does and returns the replies.
func talk(t *testing.T, f *tools, msgs ...string) []string {
	t.Helper()
	state := domain.State{}
	var out []string
	for _, m := range msgs {
		turn := placestest.Recognize(m, state, domain.Slots{})
		a, err := ad.Reply(context.Background(), app.Conversation{Message: m, State: state, Turn: turn, Plan: "growth"}, f)
		require.NoError(t, err)
		out = append(out, a.Text)
		state = a.State
	}
	return out
}

func TestAStatementIsRememberedAndTheSearchOffered(t *testing.T) {
	t.Parallel()
	f := &tools{leads: app.LeadResults{Count: 2, Leads: []app.Lead{{BusinessName: "Rise Bakery", Score: 70}, {BusinessName: "Crumb Co", Score: 90}}}}
	r := talk(t, f,
		"My name is Zoë and I run a bakery in Denver. Remember that.",
		"What is my name?",
		"what do you know about me?",
		"I run a bakery in Denver",
		"sure",
		"which of them has the best score?",
		"the top 2",
		"And what about reviews?",
		"thanks",
	)
	require.Equal(t, "Nice to meet you, Zoë. I'll remember that your industry is bakery and you are based in Denver. Want me to find bakery leads in Denver? "+
		"Say \"yes\" and I will: it uses one lead search of your plan and adds the best matches to your leads sheet.", r[0])
	require.Equal(t, "Your name is Zoë.", r[1])
	require.Equal(t, "You told me that your name is Zoë, your industry is bakery and you are based in Denver.", r[2])
	require.Contains(t, r[4], "I found 2 bakery leads in Denver")
	require.Equal(t, []app.LeadSearch{{Industry: "bakery", Location: "Denver", Limit: 5}}, f.searches, "one search, on the yes")
	require.Equal(t, "Crumb Co has the best score, 90. Call them first.", r[5])
	require.Equal(t, "The top 2 of the last search, by score:\n1. Crumb Co, score 90\n2. Rise Bakery, score 70", r[6])
	require.Contains(t, r[7], "can't see reviews")
	require.Equal(t, "Glad to help, Zoë. Ask me for leads, your health score, plan usage, churn risks or your next growth steps whenever you like.", r[8])
	require.Len(t, f.searches, 1)
}

func TestRememberedFactsFillASearch(t *testing.T) {
	t.Parallel()
	f := &tools{}
	r := talk(t, f,
		"our shop is called Rise & Shine and my goal is to double revenue this year",
		"what's my shop called?",
		"what are my goals?",
		"I'm a plumber in Austin",
		"no thanks",
		"find leads for my industry here",
	)
	require.Equal(t, "I'll remember that your business is called Rise & Shine and your goal is to double revenue this year. Ask me for your next growth steps and I'll base them on your own numbers.", r[0])
	require.Equal(t, "Your business is called Rise & Shine.", r[1])
	require.Equal(t, "Your goals: double revenue this year.", r[2])
	require.Contains(t, r[4], "I won't search")
	require.Equal(t, []app.LeadSearch{{Industry: "plumbing", Location: "Austin", Limit: 5}}, f.searches)
}
