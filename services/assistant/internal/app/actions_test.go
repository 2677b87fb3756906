package app

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/adapters/places/placestest"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// tools answer from fixed data and count what ran.
type tools struct{ searches, scored int }

func (f *tools) FindLeads(context.Context, LeadSearch) (LeadResults, error) {
	f.searches++
	return LeadResults{Count: 2, Leads: []Lead{{BusinessName: "Rise Bakery", Score: 90}, {BusinessName: "Crumb Co", Score: 70}}}, nil
}
func (f *tools) RecentLeads(context.Context, int) ([]SheetLead, error) { return nil, nil }
func (f *tools) Health(context.Context) (Health, error)                { return Health{Score: 42}, nil }
func (f *tools) Usage(context.Context) (Usage, error)                  { return Usage{}, nil }
func (f *tools) ChurnRisks(context.Context, int, int) (Churn, error)   { return Churn{}, nil }

// scoringTools have the lead-quality tools too.
type scoringTools struct{ tools }

func (f *scoringTools) QualifyLead(context.Context, LeadInput) (Qualification, error) {
	return Qualification{Score: 80, Qualified: true}, nil
}
func (f *scoringTools) ScoreLeads(_ context.Context, leads []LeadInput) (BatchScores, error) {
	f.scored += len(leads)
	return BatchScores{Scored: len(leads)}, nil
}

func names(actions []Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.Name)
	}
	return out
}

func TestTheRegistryOffersOnlyWhatTheToolsCanRun(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"find_leads", "recent_leads", "health_score", "plan_usage", "churn_risks"}, names(ActionsFor(&tools{})))
	all := names(ActionsFor(&guardedTools{Tools: &scoringTools{}}))
	require.Equal(t, []string{"find_leads", "recent_leads", "health_score", "plan_usage", "churn_risks", "qualify_lead", "score_leads"}, all)
	var effects []string
	for _, a := range Actions {
		if a.SideEffect {
			effects = append(effects, a.Name)
		}
	}
	require.Equal(t, []string{domain.ActionFindLeads, domain.ActionScoreLeads}, effects, "the actions that spend, write or send")
}

func TestGuardedToolsRunASideEffectOnlyAsTheTurnPermits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bakery := domain.Slots{Vertical: "bakery", Location: "Denver"}
	run := func(perm domain.Permission, name, args string) (*scoringTools, *guardedTools, error) {
		inner := &scoringTools{}
		g := &guardedTools{Tools: inner, perm: perm}
		_, err := RunAction(ctx, g, name, args)
		return inner, g, err
	}

	// A statement: nothing that spends runs; reading does.
	inner, g, err := run(domain.Permission{}, "find_leads", `{"industry":"bakery","location":"Denver"}`)
	var refused *NotRequested
	require.ErrorAs(t, err, &refused)
	require.Zero(t, inner.searches)
	require.Equal(t, &domain.Offer{Action: domain.ActionFindLeads, Slots: bakery}, g.refused, "what was refused can be offered")
	inner, _, err = run(domain.Permission{}, "score_leads", `{"leads":[{"email":"a@b.test"}]}`)
	require.ErrorAs(t, err, &refused)
	require.Zero(t, inner.scored)
	_, _, err = run(domain.Permission{}, "health_score", "")
	require.NoError(t, err)
	_, _, err = run(domain.Permission{}, "qualify_lead", `{"lead":{"email":"a@b.test"}}`)
	require.NoError(t, err)

	// A request for a search allows the search, not scoring.
	inner, g, err = run(domain.Permission{Request: true}, "find_leads", `{"industry":"plumbing"}`)
	require.NoError(t, err)
	require.Equal(t, 1, inner.searches)
	require.Equal(t, []domain.LeadRef{{Name: "Rise Bakery", Score: 90}, {Name: "Crumb Co", Score: 70}}, g.leads)
	_, _, err = run(domain.Permission{Request: true}, "score_leads", `{"leads":[{"email":"a@b.test"}]}`)
	require.ErrorAs(t, err, &refused)
	inner, _, err = run(domain.Permission{Score: true}, "score_leads", `{"leads":[{"email":"a@b.test"},{"email":"c@d.test"}]}`)
	require.NoError(t, err)
	require.Equal(t, 2, inner.scored)

	// A confirmation allows exactly the offer.
	yes := domain.Permission{Confirmed: &domain.Offer{Action: domain.ActionFindLeads, Slots: bakery}}
	inner, _, err = run(yes, "find_leads", `{"industry":"plumbing","location":"Austin, TX"}`)
	require.ErrorAs(t, err, &refused)
	require.Zero(t, inner.searches)
	inner, _, err = run(yes, "find_leads", `{"industry":"Bakery","location":"denver"}`)
	require.NoError(t, err)
	require.Equal(t, 1, inner.searches)

	_, _, err = run(domain.Permission{Request: true}, "drop_tables", "")
	require.Error(t, err)
	require.False(t, errors.As(err, &refused))
}

func TestTheChatRemembersWhatTheOwnerSaid(t *testing.T) {
	t.Parallel()
	prev := domain.State{Profile: domain.Profile{Name: "Zoë"}}
	turn := placestest.Recognize("I run a bakery in Denver", prev, domain.Slots{})
	g := &guardedTools{Tools: &tools{}, perm: turn.Permission()}
	// The model tried another search than the one the statement suggests: ours is offered.
	_, err := g.FindLeads(context.Background(), LeadSearch{Industry: "plumbing"})
	require.Error(t, err)
	next := remember(Conversation{State: prev, Turn: turn}, nil, g)
	require.Equal(t, domain.Profile{Name: "Zoë", Industry: "bakery", City: "Denver"}, next.Profile)
	require.Equal(t, &domain.Offer{Action: domain.ActionFindLeads, Slots: domain.Slots{Vertical: "bakery", Location: "Denver"}}, next.Offer)

	// With nothing of ours to offer, the refused search is the offer.
	turn = placestest.Recognize("thanks", prev, domain.Slots{})
	g = &guardedTools{Tools: &tools{}, perm: turn.Permission()}
	_, _ = g.FindLeads(context.Background(), LeadSearch{Industry: "plumbing", Location: "Austin, TX"})
	next = remember(Conversation{State: prev, Turn: turn}, nil, g)
	require.Equal(t, &domain.Offer{Action: domain.ActionFindLeads, Slots: domain.Slots{Vertical: "plumbing", Location: "Austin, TX"}}, next.Offer)
}

func TestTheChatReadsForAModelOnlyWhatTheTurnPermits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	read := func(msg string) (*tools, *Findings) {
		// Without a gazetteer only ZIP codes are places (the service wires the product's).
		turn := domain.Recognize(msg, domain.State{}, domain.Slots{})
		inner := &tools{}
		f, err := find(ctx, Conversation{Turn: turn}, &guardedTools{Tools: inner, perm: turn.Permission()})
		require.NoError(t, err)
		return inner, f
	}

	inner, f := read("I run a bakery in 80202")
	require.Zero(t, inner.searches, "a statement is offered, not searched")
	require.Equal(t, &domain.Offer{Action: domain.ActionFindLeads, Slots: domain.Slots{Vertical: "bakery", Location: "80202"}}, f.Offer)

	inner, f = read("find bakeries in 80202")
	require.Equal(t, 1, inner.searches)
	require.Nil(t, f.Offer)
	require.True(t, f.Search.Ran)
	require.Equal(t, map[string]string{"count": "2", "top": "Rise Bakery", "topScore": "90"}, f.facts, "what a \"why?\" is answered from")

	_, f = read("how is my health score?")
	require.NoError(t, f.Health.Err)
	require.Equal(t, map[string]string{"score": "42", "tier": ""}, f.facts)
}
