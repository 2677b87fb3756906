package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// Action is one tool of the registry both brains use: the offline advisor calls it by name and
// a language model is given its definition. SideEffect marks an action that spends an allowance,
// writes the leads sheet or sends events; the chat lets one run only on an explicit request or
// a confirmed offer (guardedTools), whatever the brain asks for.
type Action struct {
	Name        string
	Description string
	Parameters  map[string]any // JSON schema of the arguments
	SideEffect  bool
	run         func(ctx context.Context, t Tools, a ActionArgs) (any, error)
	// scoring marks an action that needs LeadScoring.
	scoring bool
}

// ActionArgs are the arguments any action takes; each uses the ones it needs. None can name an
// account: the tools act with the caller's own credentials.
type ActionArgs struct {
	Industry  string      `json:"industry"`
	Location  string      `json:"location"`
	Limit     int         `json:"limit"`
	Threshold *int        `json:"threshold"`
	Lead      LeadInput   `json:"lead"`
	Leads     []LeadInput `json:"leads"`
}

func (a ActionArgs) limit(def, most int) int {
	if a.Limit < 1 {
		return def
	}
	return min(a.Limit, most)
}

// Defaults of the actions.
const (
	DefaultLeadsShown     = 5
	DefaultChurnThreshold = 60
)

func object(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// Actions is the registry.
var Actions = []Action{
	{
		Name: domain.ActionFindLeads, SideEffect: true,
		Description: "Search the business catalog for leads. Spends one lead search of the owner's plan, adds the found leads to their leads sheet and notifies their webhook subscribers: call it only when the owner asks for a search or accepts one you offered.",
		Parameters: object(map[string]any{
			"industry": map[string]any{"type": "string", "description": "industry or vertical, e.g. plumbing"},
			"location": map[string]any{"type": "string", "description": "city, state or ZIP, e.g. Austin, TX"},
			"limit":    map[string]any{"type": "integer", "minimum": 1, "maximum": 10},
		}, "industry"),
		run: func(ctx context.Context, t Tools, a ActionArgs) (any, error) {
			return t.FindLeads(ctx, LeadSearch{Industry: a.Industry, Location: a.Location, Limit: a.limit(DefaultLeadsShown, 10)})
		},
	},
	{
		Name: "recent_leads", Description: "List the newest rows of the owner's leads sheet.",
		Parameters: object(map[string]any{"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 20}}),
		run: func(ctx context.Context, t Tools, a ActionArgs) (any, error) {
			return t.RecentLeads(ctx, a.limit(10, 20))
		},
	},
	{
		Name: "health_score", Description: "The owner's health score, tier and its ten signals (0-100 each).",
		Parameters: object(map[string]any{}),
		run:        func(ctx context.Context, t Tools, _ ActionArgs) (any, error) { return t.Health(ctx) },
	},
	{
		Name: "plan_usage", Description: "This month's usage against the plan's limits per feature, and the upgrade URL.",
		Parameters: object(map[string]any{}),
		run:        func(ctx context.Context, t Tools, _ ActionArgs) (any, error) { return t.Usage(ctx) },
	},
	{
		Name: "churn_risks", Description: "The owner's client accounts most at risk of churning (growth and full stack plans).",
		Parameters: object(map[string]any{"threshold": map[string]any{"type": "integer", "minimum": 0, "maximum": 100}}),
		run: func(ctx context.Context, t Tools, a ActionArgs) (any, error) {
			threshold := DefaultChurnThreshold
			if a.Threshold != nil {
				threshold = min(max(*a.Threshold, 0), 100)
			}
			return t.ChurnRisks(ctx, threshold, a.limit(5, 5))
		},
	},
}

var leadInputSchema = object(map[string]any{
	"email":        map[string]any{"type": "string"},
	"businessName": map[string]any{"type": "string"},
	"phone":        map[string]any{"type": "string"},
}, "email")

func init() {
	Actions = append(Actions,
		Action{
			Name: "qualify_lead", scoring: true,
			Description: "Qualify one lead from its email, business name and phone: score 0-100, qualified or not, and why.",
			Parameters:  object(map[string]any{"lead": leadInputSchema}, "lead"),
			run: func(ctx context.Context, t Tools, a ActionArgs) (any, error) {
				return t.(LeadScoring).QualifyLead(ctx, a.Lead)
			},
		},
		Action{
			Name: domain.ActionScoreLeads, scoring: true, SideEffect: true,
			Description: "Score up to 25 leads in one batch. Each lead is one use of the owner's lead_scoring allowance: call it only when the owner asks for scoring.",
			Parameters: object(map[string]any{"leads": map[string]any{
				"type": "array", "minItems": 1, "maxItems": 25, "items": leadInputSchema,
			}}, "leads"),
			run: func(ctx context.Context, t Tools, a ActionArgs) (any, error) {
				return t.(LeadScoring).ScoreLeads(ctx, a.Leads)
			},
		},
	)
}

// ActionsFor are the actions the caller's tools can run.
func ActionsFor(tools Tools) []Action {
	_, scoring := unwrap(tools).(LeadScoring)
	out := make([]Action, 0, len(Actions))
	for _, a := range Actions {
		if !a.scoring || scoring {
			out = append(out, a)
		}
	}
	return out
}

func unwrap(t Tools) Tools {
	if g, ok := t.(*guardedTools); ok {
		return g.Tools
	}
	return t
}

// RunAction runs the named action with JSON arguments against tools.
func RunAction(ctx context.Context, tools Tools, name, arguments string) (any, error) {
	var args ActionArgs
	if strings.TrimSpace(arguments) != "" {
		if err := json.Unmarshal([]byte(arguments), &args); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
		}
	}
	for _, a := range ActionsFor(tools) {
		if a.Name == name {
			return a.run(ctx, tools, args)
		}
	}
	return nil, fmt.Errorf("unknown tool %q", name)
}

// NotRequested refuses a side-effecting action on a turn that did not ask for it.
type NotRequested struct {
	Action string
	Slots  domain.Slots
}

func (e *NotRequested) Error() string {
	return fmt.Sprintf("not run: %s spends the owner's allowance, and the owner did not ask for it in this message; offer it and run it when they say yes", e.Action)
}

// guardedTools are the caller's tools as one turn may use them: reading is free, and a
// side-effecting action runs only as the turn's permission allows. It keeps what the turn
// searched and what it was refused, which the session remembers.
type guardedTools struct {
	Tools
	perm domain.Permission

	mu      sync.Mutex
	ran     bool
	leads   []domain.LeadRef
	refused *domain.Offer
}

func (g *guardedTools) FindLeads(ctx context.Context, q LeadSearch) (LeadResults, error) {
	s := domain.Slots{Vertical: q.Industry, Location: q.Location}
	if !g.perm.Allows(domain.ActionFindLeads, s) {
		g.mu.Lock()
		if strings.TrimSpace(q.Industry) != "" {
			g.refused = &domain.Offer{Action: domain.ActionFindLeads, Slots: s}
		}
		g.mu.Unlock()
		return LeadResults{}, &NotRequested{Action: domain.ActionFindLeads, Slots: s}
	}
	res, err := g.Tools.FindLeads(ctx, q)
	if err == nil {
		g.mu.Lock()
		g.ran = true
		g.leads = g.leads[:0]
		for _, l := range res.Leads[:min(len(res.Leads), 10)] {
			g.leads = append(g.leads, domain.LeadRef{Name: l.BusinessName, Score: l.Score})
		}
		g.mu.Unlock()
	}
	return res, err
}

// QualifyLead reads; it spends nothing.
func (g *guardedTools) QualifyLead(ctx context.Context, l LeadInput) (Qualification, error) {
	s, ok := g.Tools.(LeadScoring)
	if !ok {
		return Qualification{}, fmt.Errorf("lead qualification is not available")
	}
	return s.QualifyLead(ctx, l)
}

// ScoreLeads spends the lead_scoring allowance, so it runs only on a request (an offer of it is
// never made: the leads to score come from the model).
func (g *guardedTools) ScoreLeads(ctx context.Context, leads []LeadInput) (BatchScores, error) {
	s, ok := g.Tools.(LeadScoring)
	if !ok {
		return BatchScores{}, fmt.Errorf("lead scoring is not available")
	}
	if !g.perm.Allows(domain.ActionScoreLeads, domain.Slots{}) {
		return BatchScores{}, &NotRequested{Action: domain.ActionScoreLeads}
	}
	return s.ScoreLeads(ctx, leads)
}
