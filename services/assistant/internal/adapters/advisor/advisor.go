// Package advisor is the built-in offline model: it puts into words what the chat recognised in a
// message and read from the caller's account for it (app.Findings). It calls no tools and needs
// no network.
package advisor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bizassist/bizassist/services/assistant/internal/app"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// Advisor implements app.Model.
type Advisor struct {
	// UpgradeURL is offered when a plan does not include what was asked.
	UpgradeURL string
}

// CallsTools is false: the chat reads the figures for the advisor.
func (ad *Advisor) CallsTools() bool { return false }

// errNoFindings is a turn the chat read nothing for: the advisor has nothing to answer from.
var errNoFindings = errors.New("advisor: the chat gave no findings")

// answer collects the reply.
type answer struct{ strings.Builder }

func (a *answer) say(format string, args ...any) { fmt.Fprintf(a, format, args...) }

// sayIf says it only when cond holds: the optional parts of a sentence.
func (a *answer) sayIf(cond bool, format string, args ...any) {
	if cond {
		a.say(format, args...)
	}
}

func (ad *Advisor) Reply(_ context.Context, c app.Conversation, _ app.Tools) (app.Answer, error) {
	f, t := c.Findings, c.Turn
	if f == nil {
		return app.Answer{}, errNoFindings
	}
	a := &answer{}
	switch t.Intent {
	case domain.IntentFindLeads:
		ad.search(t.Why, f, a)
	case domain.IntentLeadDetail:
		leadDetail(f.Detail, a)
	case domain.IntentLeadsSheet:
		ad.leadsSheet(f.Sheet, a)
	case domain.IntentHealth:
		ad.health(t.Why, f.Health, a)
	case domain.IntentUsage:
		ad.usage(t.Why, f.Usage, a)
	case domain.IntentChurn:
		ad.churn(t.Why, c.Plan, f.Churn, a)
	case domain.IntentGrowth:
		ad.growth(f.Growth, a)
	case domain.IntentInform:
		inform(t.Facts, f, a)
	case domain.IntentRecall:
		recall(t.Ask, f.Profile, a)
	case domain.IntentConfirm:
		a.say("Happy to help, but there is nothing waiting for a yes just now. ")
		help(false, "", f.Health, a)
	case domain.IntentDecline:
		a.say("All right, I won't search. Just ask whenever you want leads, or ask about your health score, plan usage or leads sheet.")
	case domain.IntentSmallTalk:
		a.say("Glad to help")
		a.sayIf(f.Profile.Name != "", ", %s", f.Profile.Name)
		a.say(". Ask me for leads, your health score, plan usage, churn risks or your next growth steps whenever you like.")
	case domain.IntentGreeting, domain.IntentHelp:
		help(t.Intent == domain.IntentGreeting, f.Profile.Name, f.Health, a)
	default:
		outOfScope(t.Score, f.AfterSearch, a)
	}
	return app.Answer{Text: strings.TrimSpace(a.String()), Topic: t.Intent.Topic()}, nil
}

// search reports a search that ran, offers one only named, or says what it lacks.
func (ad *Advisor) search(why bool, f *app.Findings, a *answer) {
	s := f.Search
	switch {
	case why && s.Ranking != nil:
		r := s.Ranking
		a.say("I ranked the %s %s leads%s by the lead finder's score: it rewards a close match on industry and place, and businesses with a weak web presence, which need your help most. %s came first with a score of %s.",
			r.Count, s.Slots.Vertical, where(s.Slots.Location), r.Top, r.TopScore)
	case why:
		a.say("I have not searched for leads in this conversation yet, so there is no ranking to explain. Ask me to \"find plumbers in Austin, TX\" and I will.")
	case s.Slots.Vertical == "" && f.Profile.Industry == "":
		a.say("Which kind of business should I look for%s? For example: \"find plumbers in Austin, TX\".", where(s.Slots.Location))
	case s.Slots.Vertical == "":
		a.say("Which kind of business should I look for%s? I can search your own industry (%s) if you say \"find leads for my industry\".", where(s.Slots.Location), f.Profile.Industry)
	case f.Offer != nil:
		offer(f.Offer.Slots, a)
	case s.Err != nil:
		ad.toolFailed(a, s.Err, "search for leads")
	case len(s.Results.Leads) == 0:
		a.say("I found no %s businesses%s in the catalog. Try a nearby city, the whole state (\"Texas\") or a broader industry.", s.Slots.Vertical, where(s.Slots.Location))
	default:
		found(s, a)
	}
}

func found(s *app.SearchFinding, a *answer) {
	leads := s.Results.Leads
	a.say("I found %s%s and added %s to your leads sheet. Top matches:\n", plural(len(leads), s.Slots.Vertical+" lead"), where(s.Slots.Location), pronoun(len(leads)))
	for i, l := range leads {
		a.say("%d. %s", i+1, l.BusinessName)
		a.sayIf(l.OwnerName != "", " (%s)", l.OwnerName)
		a.say(", score %d", l.Score)
		a.sayIf(l.Phone != "", ", %s", l.Phone)
		a.say("\n")
	}
	a.say("Reach out to the top %d today while the match is fresh. Ask \"and in another city?\" to widen the search, or \"why?\" to see how they were ranked.", min(3, len(leads)))
}

// offer proposes a search instead of running it; a "yes" next runs exactly this one.
func offer(s domain.Slots, a *answer) {
	a.say("Want me to find %s leads%s? Say \"yes\" and I will: it uses one lead search of your plan and adds the best matches to your leads sheet.", s.Vertical, where(s.Location))
}

// inform acknowledges what the owner told us and offers what it suggests.
func inform(told domain.Profile, f *app.Findings, a *answer) {
	a.sayIf(told.Name != "", "Nice to meet you, %s. ", told.Name)
	var noted []string
	for _, n := range [][2]string{{"your business is called ", told.Business}, {"your industry is ", told.Industry}, {"you are based in ", told.City}} {
		if n[1] != "" {
			noted = append(noted, n[0]+n[1])
		}
	}
	for _, g := range told.Goals {
		noted = append(noted, "your goal is to "+strings.TrimSuffix(g, "."))
	}
	switch {
	case len(noted) > 0:
		a.say("I'll remember that %s. ", joinAnd(noted))
	case told.Name != "":
		a.say("I'll remember your name for this conversation. ")
	default:
		a.say("Noted. ")
	}
	switch {
	case f.Offer != nil:
		offer(f.Offer.Slots, a)
	case len(told.Goals) > 0:
		a.say("Ask me for your next growth steps and I'll base them on your own numbers.")
	case f.Profile.Industry == "":
		a.say("Tell me your industry and city and I can look for leads there when you ask.")
	}
}

// recall answers what the owner told us in this session: one fact when asked for one, else all.
func recall(ask string, p domain.Profile, a *answer) {
	facts := []struct{ ask, value, unknown, said, told string }{
		{"name", p.Name, "your name", "Your name is %s.", "your name is %s"},
		{"business", p.Business, "what your business is called", "Your business is called %s.", "your business is called %s"},
		{"industry", p.Industry, "your industry", "Your industry is %s.", "your industry is %s"},
		{"city", p.City, "where you are based", "You are based in %s.", "you are based in %s"},
		{"goals", strings.Join(p.Goals, "; "), "your goals", "Your goals: %s.", "your goals are: %s"},
	}
	var parts []string
	for _, f := range facts {
		switch {
		case f.ask == ask && f.value == "":
			a.say("You haven't told me %s in this conversation yet. ", f.unknown)
			a.sayIf(ask == "name", "Tell me (\"my name is ...\") and I'll remember it.")
			return
		case f.ask == ask:
			a.say(f.said, f.value)
			return
		case f.value != "":
			parts = append(parts, fmt.Sprintf(f.told, f.value))
		}
	}
	if p.IsZero() {
		a.say("You haven't told me about yourself in this conversation yet. Tell me your name, your business, its industry and city, and your goals, and I'll use them.")
		return
	}
	a.say("You told me that %s.", joinAnd(parts))
}

// leadDetail answers "the top 3" and "which is best?" from the last search.
func leadDetail(d *app.LeadDetail, a *answer) {
	switch {
	case len(d.Leads) == 0:
		a.say("I haven't found any leads in this conversation yet. Ask me to \"find plumbers in Austin, TX\" first.")
		return
	case d.Best:
		a.say("%s has the best score, %d. Call them first.", d.Leads[0].Name, d.Leads[0].Score)
		return
	}
	a.say("The top %d of the last search, by score:\n", len(d.Leads))
	for i, l := range d.Leads {
		a.say("%d. %s, score %d\n", i+1, l.Name, l.Score)
	}
	a.sayIf(d.Short, "(The search found only %d.)", len(d.Leads))
}

// outOfScope says what the assistant can do instead of guessing.
func outOfScope(score, afterSearch bool, a *answer) {
	switch {
	case score:
		a.say("I can't score leads in this chat yet. Score them in one go with the lead quality batch on your leads sheet, or ask me \"which of them has the best score?\" for the lead finder's match scores.")
	case afterSearch:
		a.say("I can't see reviews, prices or websites of the businesses I find: the lead finder gives me each one's name, contact and a match score. Ask \"which has the best score?\", \"the top 3\" or \"why?\", or search another place or industry (\"and in Dallas?\").")
	default:
		a.say("That's outside what I can do: I work from your own account's data. ")
		a.say("I can find leads when you ask (\"find plumbers in Austin, TX\"), show your leads sheet, explain your health score, check your plan usage, list clients at risk of churning and suggest your next growth steps.")
	}
}

func help(greet bool, name string, h *app.HealthFinding, a *answer) {
	switch {
	case greet && name != "":
		a.say("Hi %s! ", name)
	case greet:
		a.say("Hi! ")
	}
	if h.Err == nil {
		a.say("Your health score is %d/100 (%s) right now. ", h.Health.Score, words(h.Health.Tier))
	}
	a.say("I can find leads when you ask (\"find plumbers in Austin, TX\"), remember what you tell me about your business, show your leads sheet, explain your health score, check your plan usage, list clients at risk of churning and suggest your next growth steps. Follow-ups like \"and in Dallas?\" or \"why is that?\" work too.")
}

// toolFailed explains a tool that could not answer instead of failing the whole reply.
func (ad *Advisor) toolFailed(a *answer, err error, what string) {
	var te *app.ToolError
	switch {
	case errors.As(err, &te) && te.Status == 402:
		a.say("I couldn't %s: %s. Upgrade for more: %s", what, strings.TrimSuffix(te.Message, "."), ad.upgrade(te.UpgradeURL))
	case errors.As(err, &te) && te.Status == 400:
		a.say("I couldn't %s: %s.", what, strings.TrimSuffix(te.Message, "."))
	case errors.As(err, &te) && te.Status == 403:
		a.say("Your plan does not include that, so I couldn't %s. Upgrade: %s", what, ad.upgrade(te.UpgradeURL))
	default:
		a.say("I couldn't %s just now because the service that has it did not answer. Please try again in a minute.", what)
	}
}

func (ad *Advisor) upgrade(url string) string {
	if url != "" {
		return url
	}
	return ad.UpgradeURL
}

func where(loc string) string {
	if loc == "" {
		return ""
	}
	return " in " + loc
}

func plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, " is"):
		return fmt.Sprintf("%d %ss are", n, strings.TrimSuffix(noun, " is"))
	case strings.HasSuffix(noun, "ch"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// joinAnd lists items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
