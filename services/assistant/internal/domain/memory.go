package domain

import "strings"

// Profile is what the owner stated about themselves and their business in a session. It lives
// with the session only: it is not written to the account (docs/decisions.md, issue 27).
type Profile struct {
	Name     string   `json:"name,omitempty"`
	Business string   `json:"business,omitempty"`
	Industry string   `json:"industry,omitempty"`
	City     string   `json:"city,omitempty"`
	Goals    []string `json:"goals,omitempty"`
}

// maxGoals bounds the goals a session keeps, newest last.
const maxGoals = 5

// IsZero reports a profile with nothing stated.
func (p Profile) IsZero() bool {
	return p.Name == "" && p.Business == "" && p.Industry == "" && p.City == "" && len(p.Goals) == 0
}

// Merge returns p with what newer states overriding it; goals accumulate.
func (p Profile) Merge(newer Profile) Profile {
	if newer.Name != "" {
		p.Name = newer.Name
	}
	if newer.Business != "" {
		p.Business = newer.Business
	}
	if newer.Industry != "" {
		p.Industry = newer.Industry
	}
	if newer.City != "" {
		p.City = newer.City
	}
	for _, g := range newer.Goals {
		dup := false
		for _, h := range p.Goals {
			dup = dup || strings.EqualFold(g, h)
		}
		if !dup {
			p.Goals = append(p.Goals, g)
		}
	}
	if len(p.Goals) > maxGoals {
		p.Goals = append([]string(nil), p.Goals[len(p.Goals)-maxGoals:]...)
	}
	return p
}

// Offer is an action an answer proposed instead of running it.
type Offer struct {
	Action string `json:"action"`
	Slots  Slots  `json:"slots"`
}

// LeadRef is one lead of the last search, as far as follow-ups need it.
type LeadRef struct {
	Name  string `json:"name"`
	Score int    `json:"score"`
}

// Names of the side-effecting actions, shared by the action registry and offers.
const (
	ActionFindLeads  = "find_leads"
	ActionScoreLeads = "score_leads"
)

// Permission says which side-effecting actions a turn allows: the one it explicitly asks for;
// only the offered one with the offered arguments, on a confirmation; none otherwise.
type Permission struct {
	Request bool // a lead search was asked for
	Score   bool // scoring leads was asked for
	// Confirmed is the offer a "yes" accepted.
	Confirmed *Offer
}

// Allows reports whether the action with these slots may run.
func (p Permission) Allows(action string, s Slots) bool {
	if (action == ActionFindLeads && p.Request) || (action == ActionScoreLeads && p.Score) {
		return true
	}
	if p.Confirmed == nil || p.Confirmed.Action != action {
		return false
	}
	o := p.Confirmed.Slots
	return strings.EqualFold(o.Vertical, s.Vertical) && strings.EqualFold(o.Location, s.Location)
}

// After is the state a turn leaves behind: the thread of the conversation (intent and slots),
// what the owner told us, an offer made instead of acting, and the results of a search that ran.
func (s State) After(t Turn, ran bool, leads []LeadRef) State {
	next := State{Intent: s.Intent, Slots: s.Slots, Profile: s.Profile.Merge(t.Facts), Leads: s.Leads}
	switch t.Intent {
	case IntentFindLeads:
		next.Intent, next.Slots = IntentFindLeads, t.Slots
		switch {
		case ran:
			next.Leads = leads
		case t.Why || t.Permission().Allows(ActionFindLeads, t.Slots):
		case t.Slots.Vertical != "":
			// Named but not asked for: offered, and a "yes" runs exactly this.
			next.Intent = IntentInform
			next.Offer = &Offer{Action: ActionFindLeads, Slots: t.Slots}
		}
	case IntentInform:
		next.Intent, next.Slots = IntentInform, t.Slots
		if t.Slots.Vertical != "" {
			next.Offer = &Offer{Action: ActionFindLeads, Slots: Slots{Vertical: t.Slots.Vertical, Location: t.Slots.Location}}
		}
	case IntentLeadDetail:
		next.Intent = IntentLeadDetail
	case IntentHealth, IntentUsage, IntentChurn, IntentGrowth, IntentLeadsSheet:
		next.Intent, next.Slots = t.Intent, Slots{}
	}
	return next
}
