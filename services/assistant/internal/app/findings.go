package app

import (
	"context"
	"errors"
	"strconv"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// What an answer from findings shows: a handful, not a spreadsheet.
const (
	churnShown = 3
	sheetShown = 10
	// quietSearches is fewer lead searches in a month than keep a pipeline full.
	quietSearches = 5
)

// Findings are what the chat read for a message on behalf of a model that calls no tools (the
// offline advisor). The chat decides what the recognised message needs, runs it through the
// turn's guarded tools, resolves follow-ups from the session and keeps the figures a "why?" is
// answered from; the model only puts them into words. A part is set only when the message needs it.
type Findings struct {
	Profile domain.Profile // what the owner told us, this message included
	// Offer is the search the answer proposes instead of running; a "yes" next runs exactly it.
	Offer  *domain.Offer
	Search *SearchFinding
	Detail *LeadDetail
	Sheet  *SheetFinding
	Health *HealthFinding
	Usage  *UsageFinding
	Churn  *ChurnFinding
	Growth *GrowthFinding
	// AfterSearch marks a question the assistant cannot answer that follows a search.
	AfterSearch bool
	// facts are the figures the answer quotes, which the session keeps for a "why?".
	facts map[string]string
}

// SearchFinding is a lead search the message asks for, or asks about with "why?". Not run, it
// lacks an industry or is offered (Findings.Offer).
type SearchFinding struct {
	Slots   domain.Slots
	Ran     bool
	Results LeadResults
	Err     error
	// Ranking is the last search's figures for a "why?"; nil when none ran in this conversation.
	Ranking *Ranking
}

// Ranking is what the last search found: how many, and the first with its score.
type Ranking struct{ Count, Top, TopScore string }

// LeadDetail answers "the top 3" or "which is best?" from the last search, without searching.
type LeadDetail struct {
	Leads []domain.LeadRef // best first, as many as asked; none when no search ran
	Best  bool             // one lead was asked for
	Short bool             // the search found fewer than asked
}

type SheetFinding struct {
	Leads []SheetLead
	Err   error
}

type HealthFinding struct {
	Health  Health
	Weakest []Signal // the signals, weakest first
	Err     error
}

type UsageFinding struct {
	Usage   Usage
	Nearest []string // the features, closest to their limit first
	Err     error
}

type ChurnFinding struct {
	Churn     Churn
	Threshold int
	// NotOnPlan is the refusal of a plan without churn prediction.
	NotOnPlan *ToolError
	Err       error
}

// GrowthFinding is the next growth steps, chosen from the account's own figures.
type GrowthFinding struct {
	// Basis is what the last steps were chosen from, for a "why?"; nil otherwise.
	Basis *GrowthBasis
	Steps []Step
	// Missing are the actions whose figures could not be read (health_score, plan_usage, recent_leads).
	Missing []string
}

// GrowthBasis is the figures the last growth steps came from (Weakest is the signal's label).
type GrowthBasis struct{ Weakest, WeakestValue, TopFeature, TopPct, Leads string }

// StepKind is one kind of growth step; a Step carries the figures of its kind.
type StepKind int

const (
	StepLiftSignal StepKind = iota // Signal: the weakest health signal
	StepUpgrade                    // Feature, Use, UpgradeURL: an allowance near its limit
	StepSearchMore                 // Use: the lead searches this month
	StepKeepClient                 // Client: the client most at risk
	StepStartSheet                 // the leads sheet is empty
	StepWorkLeads                  // Leads: the recent leads
)

type Step struct {
	Kind       StepKind
	Signal     Signal
	Feature    string
	Use        FeatureUsage
	UpgradeURL string
	Client     ChurnClient
	Leads      []SheetLead
}

// find reads what the recognised message needs. A side-effecting action goes through tools,
// which run it only as the turn permits; a refused search becomes the offer.
func find(ctx context.Context, c Conversation, tools Tools) (*Findings, error) {
	t, prev := c.Turn, c.State
	f := &Findings{Profile: prev.Profile.Merge(t.Facts)}
	ran := false
	switch t.Intent {
	case domain.IntentFindLeads:
		ran = f.search(ctx, t, prev, tools)
	case domain.IntentLeadDetail:
		f.detail(t, prev)
	case domain.IntentLeadsSheet:
		f.sheet(ctx, tools)
	case domain.IntentHealth:
		f.health(ctx, tools)
	case domain.IntentUsage:
		f.usage(ctx, tools)
	case domain.IntentChurn:
		f.churn(ctx, tools)
	case domain.IntentGrowth:
		f.growth(ctx, t, prev, tools)
	case domain.IntentGreeting, domain.IntentHelp, domain.IntentConfirm:
		h, err := tools.Health(ctx)
		f.Health = &HealthFinding{Health: h, Err: err}
	case domain.IntentInform, domain.IntentRecall, domain.IntentDecline, domain.IntentSmallTalk:
	default:
		f.AfterSearch = t.FollowUp && (prev.Intent == domain.IntentFindLeads || prev.Intent == domain.IntentLeadDetail)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.Offer = prev.After(t, ran, nil).Offer
	return f, nil
}

func (f *Findings) fact(k, v string) {
	if f.facts == nil {
		f.facts = map[string]string{}
	}
	f.facts[k] = v
}

// search runs the search the message asks for and reports whether it ran.
func (f *Findings) search(ctx context.Context, t domain.Turn, prev domain.State, tools Tools) bool {
	s := &SearchFinding{Slots: t.Slots}
	f.Search = s
	if t.Why {
		if prev.Facts["count"] != "" {
			s.Ranking = &Ranking{Count: prev.Facts["count"], Top: prev.Facts["top"], TopScore: prev.Facts["topScore"]}
		}
		return false
	}
	if t.Slots.Vertical == "" {
		return false
	}
	limit := DefaultLeadsShown
	if t.Slots.Count > 0 {
		limit = min(t.Slots.Count, 10)
	}
	res, err := tools.FindLeads(ctx, LeadSearch{Industry: t.Slots.Vertical, Location: t.Slots.Location, Limit: limit})
	if refused := (*NotRequested)(nil); errors.As(err, &refused) {
		return false
	}
	s.Ran, s.Results, s.Err = err == nil, res, err
	if err == nil && len(res.Leads) > 0 {
		f.fact("count", strconv.Itoa(len(res.Leads)))
		f.fact("top", res.Leads[0].BusinessName)
		f.fact("topScore", strconv.Itoa(res.Leads[0].Score))
	}
	return s.Ran
}

func (f *Findings) detail(t domain.Turn, prev domain.State) {
	leads := rankLeads(prev.Leads)
	d := &LeadDetail{Best: t.Best || t.Top == 1, Short: t.Top > len(leads)}
	n := min(max(t.Top, 1), len(leads))
	if d.Best {
		n = min(1, len(leads))
	}
	d.Leads = leads[:n]
	f.Detail = d
}

func (f *Findings) sheet(ctx context.Context, tools Tools) {
	leads, err := tools.RecentLeads(ctx, sheetShown)
	f.Sheet = &SheetFinding{Leads: leads, Err: err}
	if err == nil && len(leads) > 0 {
		f.fact("count", strconv.Itoa(len(leads)))
	}
}

func (f *Findings) health(ctx context.Context, tools Tools) {
	h, err := tools.Health(ctx)
	f.Health = &HealthFinding{Health: h, Err: err}
	if err != nil {
		return
	}
	f.Health.Weakest = h.Weakest()
	f.fact("score", strconv.Itoa(h.Score))
	f.fact("tier", h.Tier)
	if len(f.Health.Weakest) > 0 {
		f.fact("weakest", f.Health.Weakest[0].Name)
	}
}

func (f *Findings) usage(ctx context.Context, tools Tools) {
	u, err := tools.Usage(ctx)
	f.Usage = &UsageFinding{Usage: u, Err: err}
	if err != nil {
		return
	}
	f.Usage.Nearest = u.Nearest()
	if len(f.Usage.Nearest) > 0 {
		f.fact("topFeature", f.Usage.Nearest[0])
	}
}

func (f *Findings) churn(ctx context.Context, tools Tools) {
	c, err := tools.ChurnRisks(ctx, DefaultChurnThreshold, churnShown)
	f.Churn = &ChurnFinding{Churn: c, Threshold: DefaultChurnThreshold, Err: err}
	if te, refused := PlanRefused(err); refused {
		f.Churn.NotOnPlan, f.Churn.Err = te, nil
		return
	}
	if err == nil && len(c.Clients) > 0 {
		f.fact("top", c.Clients[0].BusinessName)
	}
}

// growth chooses the next steps from the account's figures: its weakest health signal, the
// allowance nearest its limit, the client most at risk and the leads sheet. A read that fails
// leaves its step out.
func (f *Findings) growth(ctx context.Context, t domain.Turn, prev domain.State, tools Tools) {
	g := &GrowthFinding{}
	f.Growth = g
	if t.Why && prev.Intent == domain.IntentGrowth && len(prev.Facts) > 0 {
		p := prev.Facts
		g.Basis = &GrowthBasis{Weakest: signal(p["weakest"], 0).Label, WeakestValue: p["weakestValue"], TopFeature: p["topFeature"], TopPct: p["topPct"], Leads: p["leads"]}
		return
	}
	if h, err := tools.Health(ctx); err == nil {
		if ranked := h.Weakest(); len(ranked) > 0 {
			f.fact("weakest", ranked[0].Name)
			f.fact("weakestValue", strconv.Itoa(ranked[0].Value))
			g.Steps = append(g.Steps, Step{Kind: StepLiftSignal, Signal: ranked[0]})
		}
	} else {
		g.Missing = append(g.Missing, "health_score")
	}
	if u, err := tools.Usage(ctx); err == nil {
		if names := u.Nearest(); len(names) > 0 {
			top := u.Features[names[0]]
			f.fact("topFeature", names[0])
			f.fact("topPct", strconv.Itoa(top.Pct))
			switch lf, ok := u.Features["lead_finder"]; {
			case u.NearLimit:
				g.Steps = append(g.Steps, Step{Kind: StepUpgrade, Feature: names[0], Use: top, UpgradeURL: u.UpgradeURL})
			case ok && lf.Used < quietSearches:
				g.Steps = append(g.Steps, Step{Kind: StepSearchMore, Use: lf})
			}
		}
	} else {
		g.Missing = append(g.Missing, "plan_usage")
	}
	if c, err := tools.ChurnRisks(ctx, DefaultChurnThreshold, 1); err == nil && len(c.Clients) > 0 {
		g.Steps = append(g.Steps, Step{Kind: StepKeepClient, Client: c.Clients[0]})
	}
	if leads, err := tools.RecentLeads(ctx, sheetShown); err == nil {
		f.fact("leads", strconv.Itoa(len(leads)))
		if len(leads) == 0 {
			g.Steps = append(g.Steps, Step{Kind: StepStartSheet})
		} else {
			g.Steps = append(g.Steps, Step{Kind: StepWorkLeads, Leads: leads})
		}
	} else {
		g.Missing = append(g.Missing, "recent_leads")
	}
}
