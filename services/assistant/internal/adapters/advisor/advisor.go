// Package advisor is the built-in offline model: it puts into words what the chat recognised in a
// message and read from the caller's account for it (app.Findings). It calls no tools and needs
// no network.
package advisor

import (
	"cmp"
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

func (ad *Advisor) leadsSheet(s *app.SheetFinding, a *answer) {
	switch {
	case s.Err != nil:
		ad.toolFailed(a, s.Err, "read your leads sheet")
		return
	case len(s.Leads) == 0:
		a.say("Your leads sheet is empty so far. Ask me to \"find dentists in Denver, CO\" and I will add the best matches.")
		return
	}
	a.say("Your %s:\n", plural(len(s.Leads), "latest lead"))
	for i, l := range s.Leads {
		a.say("%d. %s", i+1, cmp.Or(l.BusinessName, l.Name))
		a.sayIf(l.Source != "", " (from %s", l.Source)
		a.sayIf(l.Source != "" && !l.CreatedAt.IsZero(), ", %s", l.CreatedAt.Format("Jan 2"))
		a.sayIf(l.Source != "", ")")
		a.say("\n")
	}
	a.say("Score them in one go with the lead quality batch and call the qualified ones first.")
}

func (ad *Advisor) health(why bool, f *app.HealthFinding, a *answer) {
	if f.Err != nil {
		ad.toolFailed(a, f.Err, "fetch your health score")
		return
	}
	h, ranked := f.Health, f.Weakest
	if why {
		a.say("Your health score is %d (%s) mainly because of your weakest signals:\n", h.Score, words(h.Tier))
		for _, s := range ranked[:min(3, len(ranked))] {
			a.say("- %s is %d/100: %s\n", s.Label, s.Value, s.Tip)
		}
		a.say("Each signal is scored 0-100 and weighted into the total, so lifting the lowest ones moves the score fastest.")
		return
	}
	a.say("Your health score is %d/100, which is %s.", h.Score, words(h.Tier))
	if len(ranked) >= 2 {
		best := ranked[len(ranked)-1]
		a.say(" Strongest: %s (%d). Weakest: %s (%d) and %s (%d).", best.Label, best.Value, ranked[0].Label, ranked[0].Value, ranked[1].Label, ranked[1].Value)
	}
	a.say(" Ask \"why is that?\" and I'll explain what pulls it down.")
}

func (ad *Advisor) usage(why bool, f *app.UsageFinding, a *answer) {
	if f.Err != nil {
		ad.toolFailed(a, f.Err, "check your plan usage")
		return
	}
	u, names := f.Usage, f.Nearest
	if len(names) == 0 {
		a.say("I have no usage recorded for you this month yet.")
		return
	}
	top, tf := names[0], u.Features[names[0]]
	switch {
	case why && tf.Unlimited:
		a.say("None of your features has a monthly cap that you are close to; %s is your most used feature with %d uses this month.", words(top), tf.Used)
		return
	case why:
		a.say("%s is the feature closest to its monthly limit: %d of %d used (%d%%). Allowances reset at the start of each month (UTC).", capitalise(words(top)), tf.Used, tf.Limit, tf.Pct)
		a.sayIf(u.NearLimit, " Upgrading raises the limit: %s", ad.upgrade(u.UpgradeURL))
		return
	}
	a.say("This month you have used: ")
	for i, n := range names {
		f := u.Features[n]
		a.sayIf(i > 0, "; ")
		a.sayIf(f.Unlimited, "%s %d (unlimited)", words(n), f.Used)
		a.sayIf(!f.Unlimited, "%s %d of %d (%d%%)", words(n), f.Used, f.Limit, f.Pct)
	}
	a.say(". Overall usage is %d%%.", u.UsagePercent)
	if u.NearLimit {
		a.say(" You are close to the limit on %s; upgrade to keep going: %s", words(top), ad.upgrade(u.UpgradeURL))
	} else {
		a.say(" You have room to spare.")
	}
}

func (ad *Advisor) churn(why bool, plan string, f *app.ChurnFinding, a *answer) {
	switch {
	case f.NotOnPlan != nil:
		a.say("Churn prediction is part of the growth and full stack plans")
		a.sayIf(plan != "", " (you are on %s)", words(plan))
		a.say(". Upgrade to see which clients are about to leave: %s", ad.upgrade(f.NotOnPlan.UpgradeURL))
		return
	case f.Err != nil:
		ad.toolFailed(a, f.Err, "check your clients' churn risk")
		return
	case len(f.Churn.Clients) == 0:
		a.say("Good news: none of your clients is at %d%% churn risk or more right now.", f.Threshold)
		return
	}
	top := f.Churn.Clients[0]
	if why {
		a.say("%s tops the list at %d%% churn risk with a health score of %d", top.BusinessName, top.ChurnProbability, top.HealthScore)
		a.sayIf(top.LastLogin != "", " and no login since %s", day(top.LastLogin))
		a.say(". The model weighs the same ten health signals; the weakest ones drive the risk. %s", top.Recommendation)
		return
	}
	a.say("%s at %d%% churn risk or more. Highest first:\n", plural(f.Churn.AtRisk, "client is"), f.Threshold)
	for i, cl := range f.Churn.Clients {
		a.say("%d. %s: %d%% risk, health %d", i+1, cl.BusinessName, cl.ChurnProbability, cl.HealthScore)
		a.sayIf(cl.LastLogin != "", ", last login %s", day(cl.LastLogin))
		a.say("\n")
	}
	a.sayIf(top.Recommendation != "", "First move for %s: %s", top.BusinessName, top.Recommendation)
}

// missing names what a growth step could not be read from.
var missing = map[string]string{"health_score": "your health score", "plan_usage": "your plan usage", "recent_leads": "your leads sheet"}

func (ad *Advisor) growth(g *app.GrowthFinding, a *answer) {
	if b := g.Basis; b != nil {
		a.say("I chose those steps from your own numbers: your weakest health signal (%s at %s), your busiest feature (%s at %s%% of its limit) and your leads sheet (%s recent leads).",
			b.Weakest, b.WeakestValue, words(b.TopFeature), b.TopPct, b.Leads)
		return
	}
	var lost []string
	for _, m := range g.Missing {
		lost = append(lost, missing[m])
	}
	if len(g.Steps) == 0 {
		a.say("I could not reach %s just now, so I have no figures to base advice on. Please try again in a minute.", strings.Join(lost, " or "))
		return
	}
	a.say("Your next steps, from your own numbers:\n")
	for i, s := range g.Steps {
		a.say("%d. %s.\n", i+1, strings.TrimSuffix(ad.step(s), "."))
	}
	a.sayIf(len(lost) > 0, "(I could not fetch %s just now.)", strings.Join(lost, " or "))
}

func (ad *Advisor) step(s app.Step) string {
	switch s.Kind {
	case app.StepLiftSignal:
		return fmt.Sprintf("Lift your weakest health signal, %s (%d/100): %s", s.Signal.Label, s.Signal.Value, s.Signal.Tip)
	case app.StepUpgrade:
		return fmt.Sprintf("You have used %d%% of your %s allowance; upgrade before it runs out: %s", s.Use.Pct, words(s.Feature), ad.upgrade(s.UpgradeURL))
	case app.StepSearchMore:
		return fmt.Sprintf("You have run %s this month: search your best industry and city every week to keep the pipeline full", plural(s.Use.Used, "lead search"))
	case app.StepKeepClient:
		return fmt.Sprintf("Keep your clients: call %s first (%d%% churn risk, health %d)", s.Client.BusinessName, s.Client.ChurnProbability, s.Client.HealthScore)
	case app.StepStartSheet:
		return "Your leads sheet is empty: ask me to \"find <industry> in <city>\" to start it"
	}
	l := s.Leads[0]
	return fmt.Sprintf("Work your %s (latest: %s): score them in one batch and call the qualified ones first", plural(len(s.Leads), "recent lead"), cmp.Or(l.BusinessName, l.Name))
}

// words writes an API name (at_risk, lead_finder, full_stack) as words.
func words(name string) string { return strings.ReplaceAll(name, "_", " ") }

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

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// day keeps the date of an ISO 8601 timestamp.
func day(ts string) string { return ts[:min(len(ts), 10)] }

// joinAnd lists items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
