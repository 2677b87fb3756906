package advisor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/allowance"
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

func (f *tools) For(string) app.Tools { return f }
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

// sessions keeps one conversation's state and the feed events of its exchanges.
type sessions struct {
	session *domain.Session
	feed    []domain.FeedEvent
}

func (s *sessions) Load(_ context.Context, _, _ string, _ int) (*domain.Session, []domain.Message, error) {
	if s.session == nil {
		return nil, nil, domain.ErrSessionNotFound
	}
	return s.session, nil, nil
}

func (s *sessions) Save(_ context.Context, sess *domain.Session, _ bool, _ []domain.Message, feed ...app.SourcedEvent) error {
	s.session = sess
	for _, e := range feed {
		s.feed = append(s.feed, e.Event)
	}
	return nil
}

type reserver struct{}

func (reserver) Reserve(context.Context, string, allowance.Request) (allowance.Reservation, error) {
	return allowance.Reservation{ID: "res_1"}, nil
}
func (reserver) Release(context.Context, string, string) error { return nil }

type words struct{}

func (words) Count(s string) int { return len(s) }

var now = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// conversation is the chat with the offline advisor, as the service wires it, on one session.
type conversation struct {
	chat  *app.Chat
	store *sessions
	plan  string
}

func converse(f *tools, plan string, prev domain.State) *conversation {
	store := &sessions{}
	if prev.Intent != domain.IntentNone {
		store.session = domain.RestoreSession("ses_1", "acc_1", prev, now)
	}
	return &conversation{store: store, plan: plan, chat: &app.Chat{
		Sessions: store, Places: placestest.Places, Tools: f, Allowance: reserver{}, Tokenizer: words{}, HistoryBudget: 2000,
		Model: &advisor.Advisor{UpgradeURL: "https://bizassist.test/pricing"}, Now: func() time.Time { return now },
	}}
}

// say sends one message on the conversation's session and returns the reply.
func (c *conversation) say(t *testing.T, msg string) string {
	t.Helper()
	res, err := c.chat.Handle(context.Background(), app.ChatCommand{AccountID: "acc_1", Plan: c.plan, Token: "tok", Message: msg, SessionID: "ses_1"})
	require.NoError(t, err)
	return res.Reply
}

func (c *conversation) state() domain.State { return c.store.session.State() }

// talk replays a conversation turn by turn and returns the replies.
func talk(t *testing.T, f *tools, msgs ...string) []string {
	t.Helper()
	c := converse(f, "growth", domain.State{})
	var out []string
	for _, m := range msgs {
		out = append(out, c.say(t, m))
	}
	return out
}

func TestLeadSearchAsksForTheIndustryItDoesNotKnow(t *testing.T) {
	t.Parallel()
	f := &tools{}
	c := converse(f, "free", domain.State{})
	require.Contains(t, c.say(t, "find me leads in Boise"), "Which kind of business should I look for in Boise?")
	require.Empty(t, f.searches)
	require.Equal(t, domain.Slots{Location: "Boise"}, c.state().Slots)

	// The place is remembered: naming the industry next completes the search.
	c.say(t, "plumbers")
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
		reply := converse(&tools{searchErr: tc.err}, "free", domain.State{}).say(t, "find plumbers in Austin")
		require.Contains(t, reply, tc.want)
		require.NotContains(t, reply, "connection refused", "transport details stay out of replies")
	}
}

func TestAnUnrecognisedMessageKeepsTheThread(t *testing.T) {
	t.Parallel()
	prev := domain.State{Intent: domain.IntentHealth, Facts: map[string]string{"score": "42"}}
	c := converse(&tools{health: app.Health{Score: 42, Tier: "at_risk"}}, "free", prev)
	reply := c.say(t, "the weather is nice")
	require.Contains(t, reply, "outside what I can do")
	require.Contains(t, reply, "find leads when you ask", "it says what it can do instead")
	require.Equal(t, prev, c.state(), "a later \"why?\" still refers to the health score")
	help, err := domain.ChatExchanged(domain.IntentHelp, now)
	require.NoError(t, err)
	require.Equal(t, []domain.FeedEvent{help}, c.store.feed, "recorded as help, not as a topic of its own")
}

func TestUsageNamesTheFeatureClosestToItsLimit(t *testing.T) {
	t.Parallel()
	f := &tools{usage: app.Usage{NearLimit: true, UsagePercent: 92, Features: map[string]app.FeatureUsage{
		"chat":         {Used: 46, Limit: 50, Pct: 92},
		"lead_finder":  {Used: 3, Limit: 10, Pct: 30},
		"lead_scoring": {Used: 7, Unlimited: true},
	}}}
	c := converse(f, "free", domain.State{})
	reply := c.say(t, "how much of my plan have I used?")
	require.Contains(t, reply, "chat 46 of 50 (92%); lead finder 3 of 10 (30%); lead scoring 7 (unlimited)")
	require.Contains(t, reply, "close to the limit on chat")
	require.Contains(t, reply, "https://bizassist.test/pricing", "the advisor's URL when analytics sends none")

	require.Contains(t, c.say(t, "why?"), "Chat is the feature closest to its monthly limit: 46 of 50 used (92%)")
}

func TestChurnOnAPlanWithoutItOffersTheUpgrade(t *testing.T) {
	t.Parallel()
	reply := converse(&tools{}, "free", domain.State{}).say(t, "who is likely to churn?")
	require.Contains(t, reply, "growth and full stack plans (you are on free)")
	require.Contains(t, reply, "https://bizassist.test/pricing")
}

func TestHealthAndItsWhyNameTheWeakestSignals(t *testing.T) {
	t.Parallel()
	c := converse(&tools{health: app.Health{Score: 38, Tier: "at_risk", Signals: map[string]int{"loginRecency": 10, "tenure": 90, "leadActivity": 20}}}, "free", domain.State{})
	require.Equal(t, "Your health score is 38/100, which is at risk. Strongest: tenure (90). Weakest: login recency (10) and lead activity (20). Ask \"why is that?\" and I'll explain what pulls it down.",
		c.say(t, "how is my health score?"))
	require.Contains(t, c.say(t, "why is that?"), "- login recency is 10/100: log in a few times a week")
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

func TestTheAdvisorAnswersOnlyFromFindings(t *testing.T) {
	t.Parallel()
	ad := &advisor.Advisor{}
	require.False(t, ad.CallsTools(), "the chat reads the figures for it")
	_, err := ad.Reply(context.Background(), app.Conversation{Message: "how is my health score?"}, &tools{})
	require.Error(t, err, "without findings it has nothing to answer from")
}
