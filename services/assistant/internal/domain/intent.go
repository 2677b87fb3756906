package domain

import (
	"regexp"
	"strings"
)

// Intent is what a chat message asks for.
type Intent string

const (
	IntentNone         Intent = ""
	IntentGreeting     Intent = "greeting"
	IntentHelp         Intent = "help"
	IntentFindLeads    Intent = "find_leads"
	IntentLeadsSheet   Intent = "leads_sheet"
	IntentHealth       Intent = "health"
	IntentUsage        Intent = "usage"
	IntentChurn        Intent = "churn"
	IntentGrowth       Intent = "growth"
	IntentConversation Intent = "conversation" // a language model answered; no intent was recognised by us
)

// Topics are the intents a chat exchange may be labelled with in events and the public feed.
var Topics = map[Intent]bool{
	IntentGreeting: true, IntentHelp: true, IntentFindLeads: true, IntentLeadsSheet: true,
	IntentHealth: true, IntentUsage: true, IntentChurn: true, IntentGrowth: true, IntentConversation: true,
}

// Slots are the parameters a lead search needs.
type Slots struct {
	Vertical string `json:"vertical,omitempty"`
	Location string `json:"location,omitempty"`
}

// merge fills the empty slots of s from fallback.
func (s Slots) merge(fallback Slots) Slots {
	if s.Vertical == "" {
		s.Vertical = fallback.Vertical
	}
	if s.Location == "" {
		s.Location = fallback.Location
	}
	return s
}

// Turn is a recognised message: the intent, its slots, and whether it asks for the reason behind
// the previous answer.
type Turn struct {
	Intent   Intent
	Slots    Slots
	Why      bool
	FollowUp bool // resolved from the session's previous turn
}

// keyword rules in priority order: the first intent whose pattern matches wins.
var intentRules = []struct {
	intent Intent
	re     *regexp.Regexp
}{
	{IntentChurn, regexp.MustCompile(`\b(churn\w*|at[ -]risk|losing|about to (leave|cancel)|might (leave|cancel)|retention|retain)\b`)},
	{IntentHealth, regexp.MustCompile(`\b(health|healthy|account score|my score|tier)\b`)},
	{IntentUsage, regexp.MustCompile(`\b(usage|limits?|quota|allowance|pql|how much (have i|did i|i've)|remaining|near(ing)? (my |the )?limit|upgrade|my plan)\b`)},
	{IntentLeadsSheet, regexp.MustCompile(`\b(my leads|leads sheet|lead sheet|sheet|how many leads|latest leads|recent leads|saved leads)\b`)},
	{IntentGrowth, regexp.MustCompile(`\b(grow\w*|next steps?|what should i (do|focus)|improve|advice|advise|recommend\w*|strategy|more (customers|clients|sales|revenue)|increase|priorit\w*)\b`)},
	{IntentFindLeads, regexp.MustCompile(`\b(leads?|prospects?|find|search|look(ing)? for|show me|get me|businesses|companies)\b`)},
	{IntentHelp, regexp.MustCompile(`\b(help|what can you do|how do(es)? (this|it|you) work|commands)\b`)},
	{IntentGreeting, regexp.MustCompile(`^(hi|hello|hey|hiya|howdy|good (morning|afternoon|evening)|yo|greetings)\b`)},
}

var (
	whyRe = regexp.MustCompile(`\b(why|how come|what('s| is) (behind|causing|driving)|explain|reason)\b`)
	// locationRe takes what follows "in", "near" or "around" up to punctuation or a filler word.
	locationRe = regexp.MustCompile(`(?i)\b(?:in|near|around|within)\s+([A-Za-z][A-Za-z .'-]*?(?:,\s*[A-Za-z]{2})?|\d{5})\s*(?:[?.!;]|$|\b(?:area|instead|too|then|please|now|also|as well)\b)`)
	// aboutRe catches "what about X" and "and X?" follow-ups that name a place or an industry.
	aboutRe = regexp.MustCompile(`(?i)^(?:and|what about|how about|ok(?:ay)? and|now)\s+(?:in\s+)?([A-Za-z0-9][A-Za-z0-9 ,.'-]*?)\s*[?.!]*$`)
	zipRe   = regexp.MustCompile(`\b\d{5}\b`)
	// rawIndustryRe catches an industry we have no synonym for: "find <x> leads", "leads for <x>".
	rawIndustryRe = regexp.MustCompile(`(?i)\b(?:find|search|show me|get me|look for)\s+(?:me\s+)?(?:some\s+|\d+\s+)?([a-z][a-z &-]{2,30}?)\s+(?:leads|prospects|businesses|companies|in|near)\b|\bleads for\s+([a-z][a-z &-]{2,30}?)(?:\s+(?:in|near)\b|[?.!]|$)`)
	spaceRe       = regexp.MustCompile(`\s+`)
)

// Recognize reads a message in the light of the session's previous turn and of slot hints the
// client sent in its context (for example the city selected on the page).
func Recognize(message string, prev State, hints Slots) Turn {
	text := spaceRe.ReplaceAllString(strings.TrimSpace(message), " ")
	lower := strings.ToLower(text)

	slots := Slots{Vertical: findVertical(lower), Location: findLocation(text)}
	why := whyRe.MatchString(lower)

	intent := IntentNone
	for _, rule := range intentRules {
		if rule.re.MatchString(lower) {
			intent = rule.intent
			break
		}
	}
	if intent == IntentFindLeads && slots.Vertical == "" && slots.Location == "" && prev.Intent == IntentFindLeads {
		// "find more" style requests repeat the last search.
		return Turn{Intent: IntentFindLeads, Slots: prev.Slots, FollowUp: true}
	}

	// "and in Dallas?" / "what about roofers?": the subject changes, the question does not.
	if intent == IntentNone && slots.Vertical == "" && slots.Location == "" {
		if m := aboutRe.FindStringSubmatch(text); m != nil {
			slots.Location = cleanLocation(m[1])
		}
	}

	switch {
	case intent == IntentNone && why && prev.Intent != IntentNone:
		return Turn{Intent: prev.Intent, Slots: prev.Slots, Why: true, FollowUp: true}
	case intent == IntentNone && (slots.Vertical != "" || slots.Location != "") && prev.Intent == IntentFindLeads:
		return Turn{Intent: IntentFindLeads, Slots: slots.merge(prev.Slots), FollowUp: true}
	case intent == IntentNone && slots.Vertical != "":
		intent = IntentFindLeads
	case intent == IntentNone && slots.Location != "" && prev.Intent != IntentNone:
		// A bare place after another topic most likely means "find leads there".
		intent = IntentFindLeads
	}

	if intent == IntentFindLeads {
		if prev.Intent == IntentFindLeads {
			slots = slots.merge(prev.Slots)
		}
		slots = slots.merge(hints)
	}
	return Turn{Intent: intent, Slots: slots, Why: why}
}

// findVertical returns the industry a message names, canonicalised through the synonym table, or
// the raw phrase of a "find X leads" request when the table does not know it.
func findVertical(lower string) string {
	words := strings.FieldsFunc(lower, func(r rune) bool {
		return (r < 'a' || r > 'z') && r != '-' && r != '&'
	})
	for n := 3; n >= 1; n-- { // longest phrase first: "real estate agents" before "agents"
		for i := 0; i+n <= len(words); i++ {
			if v, ok := verticalSynonyms[strings.Join(words[i:i+n], " ")]; ok {
				return v
			}
		}
	}
	if m := rawIndustryRe.FindStringSubmatch(lower); m != nil {
		raw := strings.TrimSpace(m[1] + m[2])
		if !stopIndustry[raw] {
			return raw
		}
	}
	return ""
}

var stopIndustry = setOf(`me more some new good the best any local leads lead prospects businesses companies
	customers clients`)

func findLocation(text string) string {
	if m := locationRe.FindStringSubmatch(text); m != nil {
		if loc := cleanLocation(m[1]); loc != "" {
			return loc
		}
	}
	if z := zipRe.FindString(text); z != "" {
		return z
	}
	return ""
}

// cleanLocation trims filler and rejects phrases that are not places ("my plan", "this month").
func cleanLocation(s string) string {
	s = strings.Trim(strings.TrimSpace(s), ",.?!")
	lower := strings.ToLower(s)
	for _, w := range strings.Fields(lower) {
		if notPlace[w] {
			return ""
		}
	}
	if _, isVertical := verticalSynonyms[lower]; isVertical || s == "" || len(s) > 60 {
		return ""
	}
	return s
}

var notPlace = map[string]bool{
	"my": true, "the": true, "this": true, "that": true, "it": true, "general": true, "total": true,
	"month": true, "week": true, "plan": true, "score": true, "health": true, "usage": true, "leads": true,
	"why": true, "more": true, "detail": true, "details": true, "order": true, "short": true, "case": true,
	"use": true, "future": true, "fact": true, "time": true, "mind": true, "you": true, "me": true,
}

// verticalSynonyms maps the words people use to the industry term the lead finder searches for.
var verticalSynonyms = map[string]string{}

func init() {
	for canonical, words := range map[string][]string{
		"plumbing":         {"plumber", "plumbers", "plumbing"},
		"dental":           {"dentist", "dentists", "dental", "dental offices", "orthodontist", "orthodontists"},
		"roofing":          {"roofer", "roofers", "roofing"},
		"hvac":             {"hvac", "heating", "air conditioning", "ac repair"},
		"electrical":       {"electrician", "electricians", "electrical"},
		"landscaping":      {"landscaper", "landscapers", "landscaping", "lawn care", "gardeners"},
		"restaurant":       {"restaurant", "restaurants", "diner", "diners"},
		"salon":            {"salon", "salons", "hair salon", "hair salons", "barber", "barbers", "barbershops"},
		"legal":            {"lawyer", "lawyers", "attorney", "attorneys", "law firm", "law firms", "legal"},
		"accounting":       {"accountant", "accountants", "accounting", "cpa", "cpas", "bookkeepers", "bookkeeping"},
		"chiropractic":     {"chiropractor", "chiropractors", "chiropractic"},
		"auto repair":      {"auto repair", "mechanic", "mechanics", "auto shops", "garages"},
		"cleaning":         {"cleaning", "cleaners", "maid service", "janitorial"},
		"real estate":      {"real estate", "realtor", "realtors", "real estate agents"},
		"fitness":          {"gym", "gyms", "fitness", "personal trainers", "yoga studios"},
		"veterinary":       {"vet", "vets", "veterinarian", "veterinarians", "veterinary", "animal hospitals"},
		"bakery":           {"bakery", "bakeries", "bakers"},
		"cafe":             {"cafe", "cafes", "coffee shop", "coffee shops"},
		"florist":          {"florist", "florists", "flower shops"},
		"pest control":     {"pest control", "exterminator", "exterminators"},
		"photography":      {"photographer", "photographers", "photography"},
		"construction":     {"contractor", "contractors", "construction", "builders", "general contractors"},
		"painting":         {"painter", "painters", "painting"},
		"insurance":        {"insurance", "insurance agents", "insurance agencies"},
		"spa":              {"spa", "spas", "med spa", "med spas", "massage"},
		"pet grooming":     {"pet grooming", "groomers", "dog groomers"},
		"medical":          {"doctor", "doctors", "clinic", "clinics", "physicians", "medical"},
		"physical therapy": {"physical therapy", "physical therapists", "physiotherapists"},
		"moving":           {"movers", "moving", "moving companies"},
		"locksmith":        {"locksmith", "locksmiths"},
	} {
		for _, w := range words {
			verticalSynonyms[w] = canonical
		}
	}
}
