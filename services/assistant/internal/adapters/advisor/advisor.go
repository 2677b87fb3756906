// Package advisor is the built-in offline model: it recognises what a message asks, fetches the
// caller's figures through the same tools a language model would call, and writes the answer
// from them. It needs no network beyond the caller's own services.
package advisor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/bizassist/bizassist/services/assistant/internal/app"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// Advisor implements app.Model.
type Advisor struct {
	// UpgradeURL is offered when a plan does not include what was asked.
	UpgradeURL string
}

// Search sizes: a chat answer shows a handful, not a spreadsheet.
const (
	leadsShown     = 5
	churnShown     = 3
	churnThreshold = 60
)

// answer collects the reply and the facts a "why?" follow-up is answered from.
type answer struct {
	b     strings.Builder
	facts map[string]string
}

func (a *answer) say(format string, args ...any) { fmt.Fprintf(&a.b, format, args...) }

func (a *answer) fact(k, v string) {
	if a.facts == nil {
		a.facts = map[string]string{}
	}
	a.facts[k] = v
}

func (ad *Advisor) Reply(ctx context.Context, c app.Conversation, tools app.Tools) (app.Answer, error) {
	turn := c.Turn
	if turn.Intent == domain.IntentNone {
		turn = domain.Recognize(c.Message, c.State, c.Hints)
	}
	profile := c.State.Profile.Merge(turn.Facts)
	a := &answer{}
	ran := false
	var found []domain.LeadRef

	switch turn.Intent {
	case domain.IntentFindLeads:
		ran, found = ad.findLeads(ctx, turn, c.State, profile, tools, a)
	case domain.IntentLeadDetail:
		ad.leadDetail(turn, c.State, a)
	case domain.IntentLeadsSheet:
		ad.leadsSheet(ctx, tools, a)
	case domain.IntentHealth:
		ad.health(ctx, turn.Why, tools, a)
	case domain.IntentUsage:
		ad.usage(ctx, turn.Why, tools, a)
	case domain.IntentChurn:
		ad.churn(ctx, turn.Why, c.Plan, tools, a)
	case domain.IntentGrowth:
		ad.growth(ctx, turn.Why, c.State, tools, a)
	case domain.IntentInform:
		ad.inform(turn, profile, a)
	case domain.IntentRecall:
		ad.recall(turn.Ask, profile, a)
	case domain.IntentConfirm:
		a.say("Happy to help, but there is nothing waiting for a yes just now. ")
		ad.help(ctx, false, tools, a)
	case domain.IntentDecline:
		a.say("All right, I won't search. Just ask whenever you want leads, or ask about your health score, plan usage or leads sheet.")
	case domain.IntentSmallTalk:
		a.say("Glad to help")
		if profile.Name != "" {
			a.say(", %s", profile.Name)
		}
		a.say(". Ask me for leads, your health score, plan usage, churn risks or your next growth steps whenever you like.")
	case domain.IntentGreeting, domain.IntentHelp:
		ad.help(ctx, turn.Intent == domain.IntentGreeting, tools, a, profile.Name)
	default:
		ad.outOfScope(turn, c.State, a)
	}
	if err := ctx.Err(); err != nil {
		return app.Answer{}, err
	}
	state := c.State.After(turn, ran, found)
	state.Facts = a.facts
	if len(a.facts) == 0 && (turn.Why || state.Intent == c.State.Intent) {
		state.Facts = c.State.Facts // explaining, or talking of something else, keeps the figures
	}
	return app.Answer{Text: strings.TrimSpace(a.b.String()), State: state, Topic: topic(turn.Intent)}, nil
}

// topic is the feed label of an exchange: our own conversational intents are not feed topics.
func topic(i domain.Intent) domain.Intent {
	switch {
	case i == domain.IntentLeadDetail:
		return domain.IntentFindLeads
	case domain.Topics[i]:
		return i
	}
	return domain.IntentHelp
}

// findLeads runs a search the owner asked for, and offers one they only named.
func (ad *Advisor) findLeads(ctx context.Context, turn domain.Turn, prev domain.State, profile domain.Profile, tools app.Tools, a *answer) (bool, []domain.LeadRef) {
	s := turn.Slots
	if turn.Why && prev.Facts["count"] != "" {
		f := prev.Facts
		a.say("I ranked the %s %s leads%s by the lead finder's score: it rewards a close match on industry and place, and businesses with a weak web presence, which need your help most. %s came first with a score of %s.",
			f["count"], s.Vertical, where(s.Location), f["top"], f["topScore"])
		return false, nil
	}
	if turn.Why {
		a.say("I have not searched for leads in this conversation yet, so there is no ranking to explain. Ask me to \"find plumbers in Austin, TX\" and I will.")
		return false, nil
	}
	if s.Vertical == "" {
		if profile.Industry == "" {
			a.say("Which kind of business should I look for%s? For example: \"find plumbers in Austin, TX\".", where(s.Location))
		} else {
			a.say("Which kind of business should I look for%s? I can search your own industry (%s) if you say \"find leads for my industry\".", where(s.Location), profile.Industry)
		}
		return false, nil
	}
	if !turn.Permission().Allows(domain.ActionFindLeads, s) {
		ad.offer(s, a)
		return false, nil
	}
	limit := leadsShown
	if s.Count > 0 {
		limit = min(s.Count, 10)
	}
	res, err := tools.FindLeads(ctx, app.LeadSearch{Industry: s.Vertical, Location: s.Location, Limit: limit})
	var refused *app.NotRequested
	if errors.As(err, &refused) {
		ad.offer(s, a)
		return false, nil
	}
	if err != nil {
		ad.toolFailed(a, err, "search for leads")
		return false, nil
	}
	refs := make([]domain.LeadRef, 0, len(res.Leads))
	for _, l := range res.Leads {
		refs = append(refs, domain.LeadRef{Name: l.BusinessName, Score: l.Score})
	}
	if len(res.Leads) == 0 {
		a.say("I found no %s businesses%s in the catalog. Try a nearby city, the whole state (\"Texas\") or a broader industry.", s.Vertical, where(s.Location))
		return true, refs
	}
	a.say("I found %s%s and added %s to your leads sheet. Top matches:\n", plural(len(res.Leads), s.Vertical+" lead"), where(s.Location), pronoun(len(res.Leads)))
	for i, l := range res.Leads {
		a.say("%d. %s", i+1, l.BusinessName)
		if l.OwnerName != "" {
			a.say(" (%s)", l.OwnerName)
		}
		a.say(", score %d", l.Score)
		if l.Phone != "" {
			a.say(", %s", l.Phone)
		}
		a.say("\n")
	}
	a.say("Reach out to the top %d today while the match is fresh. Ask \"and in another city?\" to widen the search, or \"why?\" to see how they were ranked.", min(3, len(res.Leads)))
	a.fact("count", strconv.Itoa(len(res.Leads)))
	a.fact("top", res.Leads[0].BusinessName)
	a.fact("topScore", strconv.Itoa(res.Leads[0].Score))
	return true, refs
}

// offer proposes a search instead of running it; a "yes" next runs exactly this one.
func (ad *Advisor) offer(s domain.Slots, a *answer) {
	a.say("Want me to find %s leads%s? Say \"yes\" and I will: it uses one lead search of your plan and adds the best matches to your leads sheet.", s.Vertical, where(s.Location))
}

// inform acknowledges what the owner told us and offers what it suggests.
func (ad *Advisor) inform(turn domain.Turn, profile domain.Profile, a *answer) {
	f := turn.Facts
	if f.Name != "" {
		a.say("Nice to meet you, %s. ", f.Name)
	}
	var noted []string
	if f.Business != "" {
		noted = append(noted, "your business is called "+f.Business)
	}
	if f.Industry != "" {
		noted = append(noted, "your industry is "+f.Industry)
	}
	if f.City != "" {
		noted = append(noted, "you are based in "+f.City)
	}
	for _, g := range f.Goals {
		noted = append(noted, "your goal is to "+strings.TrimSuffix(g, "."))
	}
	switch {
	case len(noted) > 0:
		a.say("I'll remember that %s. ", joinAnd(noted))
	case f.Name != "":
		a.say("I'll remember your name for this conversation. ")
	default:
		a.say("Noted. ")
	}
	if turn.Slots.Vertical != "" {
		ad.offer(turn.Slots, a)
		return
	}
	if len(f.Goals) > 0 {
		a.say("Ask me for your next growth steps and I'll base them on your own numbers.")
		return
	}
	if profile.Industry == "" {
		a.say("Tell me your industry and city and I can look for leads there when you ask.")
	}
}

// recall answers what the owner told us in this session: one fact when asked for one, else all.
func (ad *Advisor) recall(ask string, p domain.Profile, a *answer) {
	facts := []struct{ ask, value, unknown, said, told string }{
		{"name", p.Name, "your name", "Your name is %s.", "your name is %s"},
		{"business", p.Business, "what your business is called", "Your business is called %s.", "your business is called %s"},
		{"industry", p.Industry, "your industry", "Your industry is %s.", "your industry is %s"},
		{"city", p.City, "where you are based", "You are based in %s.", "you are based in %s"},
		{"goals", strings.Join(p.Goals, "; "), "your goals", "Your goals: %s.", "your goals are: %s"},
	}
	for _, f := range facts {
		switch {
		case f.ask != ask:
		case f.value == "":
			a.say("You haven't told me %s in this conversation yet. ", f.unknown)
			if ask == "name" {
				a.say("Tell me (\"my name is ...\") and I'll remember it.")
			}
			return
		default:
			a.say(f.said, f.value)
			return
		}
	}
	if p.IsZero() {
		a.say("You haven't told me about yourself in this conversation yet. Tell me your name, your business, its industry and city, and your goals, and I'll use them.")
		return
	}
	var parts []string
	for _, f := range facts {
		if f.value != "" {
			parts = append(parts, fmt.Sprintf(f.told, f.value))
		}
	}
	a.say("You told me that %s.", joinAnd(parts))
}

// leadDetail answers "the top 3" and "which is best?" from the last search, without searching
// again.
func (ad *Advisor) leadDetail(turn domain.Turn, prev domain.State, a *answer) {
	leads := append([]domain.LeadRef(nil), prev.Leads...)
	if len(leads) == 0 {
		a.say("I haven't found any leads in this conversation yet. Ask me to \"find plumbers in Austin, TX\" first.")
		return
	}
	sort.SliceStable(leads, func(i, j int) bool { return leads[i].Score > leads[j].Score })
	if turn.Best || turn.Top == 1 {
		a.say("%s has the best score, %d. Call them first.", leads[0].Name, leads[0].Score)
		return
	}
	n := min(max(turn.Top, 1), len(leads))
	a.say("The top %d of the last search, by score:\n", n)
	for i, l := range leads[:n] {
		a.say("%d. %s, score %d\n", i+1, l.Name, l.Score)
	}
	if turn.Top > len(leads) {
		a.say("(The search found only %d.)", len(leads))
	}
}

// outOfScope says what the assistant can do instead of guessing.
func (ad *Advisor) outOfScope(turn domain.Turn, prev domain.State, a *answer) {
	if turn.Score {
		a.say("I can't score leads in this chat yet. Score them in one go with the lead quality batch on your leads sheet, or ask me \"which of them has the best score?\" for the lead finder's match scores.")
		return
	}
	if turn.FollowUp && (prev.Intent == domain.IntentFindLeads || prev.Intent == domain.IntentLeadDetail) {
		a.say("I can't see reviews, prices or websites of the businesses I find: the lead finder gives me each one's name, contact and a match score. Ask \"which has the best score?\", \"the top 3\" or \"why?\", or search another place or industry (\"and in Dallas?\").")
		return
	}
	a.say("That's outside what I can do: I work from your own account's data. ")
	a.say("I can find leads when you ask (\"find plumbers in Austin, TX\"), show your leads sheet, explain your health score, check your plan usage, list clients at risk of churning and suggest your next growth steps.")
}

func (ad *Advisor) leadsSheet(ctx context.Context, tools app.Tools, a *answer) {
	leads, err := tools.RecentLeads(ctx, 10)
	if err != nil {
		ad.toolFailed(a, err, "read your leads sheet")
		return
	}
	if len(leads) == 0 {
		a.say("Your leads sheet is empty so far. Ask me to \"find dentists in Denver, CO\" and I will add the best matches.")
		return
	}
	a.say("Your %s:\n", plural(len(leads), "latest lead"))
	for i, l := range leads {
		name := l.BusinessName
		if name == "" {
			name = l.Name
		}
		a.say("%d. %s", i+1, name)
		if l.Source != "" {
			a.say(" (from %s", l.Source)
			if !l.CreatedAt.IsZero() {
				a.say(", %s", l.CreatedAt.Format("Jan 2"))
			}
			a.say(")")
		}
		a.say("\n")
	}
	a.say("Score them in one go with the lead quality batch and call the qualified ones first.")
	a.fact("count", strconv.Itoa(len(leads)))
}

func (ad *Advisor) health(ctx context.Context, why bool, tools app.Tools, a *answer) {
	h, err := tools.Health(ctx)
	if err != nil {
		ad.toolFailed(a, err, "fetch your health score")
		return
	}
	ranked := rankSignals(h.Signals)
	a.fact("score", strconv.Itoa(h.Score))
	a.fact("tier", h.Tier)
	if len(ranked) > 0 {
		a.fact("weakest", ranked[0].name)
	}
	if why {
		a.say("Your health score is %d (%s) mainly because of your weakest signals:\n", h.Score, tierWords(h.Tier))
		for _, s := range ranked[:min(3, len(ranked))] {
			a.say("- %s is %d/100: %s\n", signalLabel(s.name), s.value, signalTip(s.name))
		}
		a.say("Each signal is scored 0-100 and weighted into the total, so lifting the lowest ones moves the score fastest.")
		return
	}
	a.say("Your health score is %d/100, which is %s.", h.Score, tierWords(h.Tier))
	if len(ranked) >= 2 {
		best := ranked[len(ranked)-1]
		a.say(" Strongest: %s (%d). Weakest: %s (%d) and %s (%d).", signalLabel(best.name), best.value,
			signalLabel(ranked[0].name), ranked[0].value, signalLabel(ranked[1].name), ranked[1].value)
	}
	a.say(" Ask \"why is that?\" and I'll explain what pulls it down.")
}

func (ad *Advisor) usage(ctx context.Context, why bool, tools app.Tools, a *answer) {
	u, err := tools.Usage(ctx)
	if err != nil {
		ad.toolFailed(a, err, "check your plan usage")
		return
	}
	names := sortedFeatures(u.Features)
	if len(names) == 0 {
		a.say("I have no usage recorded for you this month yet.")
		return
	}
	top := names[0]
	tf := u.Features[top]
	a.fact("topFeature", top)
	if why {
		if tf.Unlimited {
			a.say("None of your features has a monthly cap that you are close to; %s is your most used feature with %d uses this month.", featureLabel(top), tf.Used)
			return
		}
		a.say("%s is the feature closest to its monthly limit: %d of %d used (%d%%). Allowances reset at the start of each month (UTC).", capitalise(featureLabel(top)), tf.Used, tf.Limit, tf.Pct)
		if u.NearLimit {
			a.say(" Upgrading raises the limit: %s", ad.upgrade(u.UpgradeURL))
		}
		return
	}
	a.say("This month you have used: ")
	for i, n := range names {
		f := u.Features[n]
		if i > 0 {
			a.say("; ")
		}
		if f.Unlimited {
			a.say("%s %d (unlimited)", featureLabel(n), f.Used)
		} else {
			a.say("%s %d of %d (%d%%)", featureLabel(n), f.Used, f.Limit, f.Pct)
		}
	}
	a.say(". Overall usage is %d%%.", u.UsagePercent)
	if u.NearLimit {
		a.say(" You are close to the limit on %s; upgrade to keep going: %s", featureLabel(top), ad.upgrade(u.UpgradeURL))
	} else {
		a.say(" You have room to spare.")
	}
}

func (ad *Advisor) churn(ctx context.Context, why bool, plan string, tools app.Tools, a *answer) {
	c, err := tools.ChurnRisks(ctx, churnThreshold, churnShown)
	if te, refused := app.PlanRefused(err); refused {
		a.say("Churn prediction is part of the growth and full stack plans")
		if plan != "" {
			a.say(" (you are on %s)", planLabel(plan))
		}
		a.say(". Upgrade to see which clients are about to leave: %s", ad.upgrade(te.UpgradeURL))
		return
	}
	if err != nil {
		ad.toolFailed(a, err, "check your clients' churn risk")
		return
	}
	if len(c.Clients) == 0 {
		a.say("Good news: none of your clients is at %d%% churn risk or more right now.", churnThreshold)
		return
	}
	top := c.Clients[0]
	a.fact("top", top.BusinessName)
	if why {
		a.say("%s tops the list at %d%% churn risk with a health score of %d", top.BusinessName, top.ChurnProbability, top.HealthScore)
		if d := day(top.LastLogin); d != "" {
			a.say(" and no login since %s", d)
		}
		a.say(". The model weighs the same ten health signals; the weakest ones drive the risk. %s", top.Recommendation)
		return
	}
	a.say("%s at %d%% churn risk or more. Highest first:\n", plural(c.AtRisk, "client is"), churnThreshold)
	for i, cl := range c.Clients {
		a.say("%d. %s: %d%% risk, health %d", i+1, cl.BusinessName, cl.ChurnProbability, cl.HealthScore)
		if d := day(cl.LastLogin); d != "" {
			a.say(", last login %s", d)
		}
		a.say("\n")
	}
	if top.Recommendation != "" {
		a.say("First move for %s: %s", top.BusinessName, top.Recommendation)
	}
}

func (ad *Advisor) growth(ctx context.Context, why bool, prev domain.State, tools app.Tools, a *answer) {
	if why && prev.Intent == domain.IntentGrowth && len(prev.Facts) > 0 {
		f := prev.Facts
		a.say("I chose those steps from your own numbers: your weakest health signal (%s at %s), your busiest feature (%s at %s%% of its limit) and your leads sheet (%s recent leads).",
			signalLabel(f["weakest"]), f["weakestValue"], featureLabel(f["topFeature"]), f["topPct"], f["leads"])
		return
	}
	var steps []string
	var missing []string
	if h, err := tools.Health(ctx); err == nil {
		if ranked := rankSignals(h.Signals); len(ranked) > 0 {
			w := ranked[0]
			a.fact("weakest", w.name)
			a.fact("weakestValue", strconv.Itoa(w.value))
			steps = append(steps, fmt.Sprintf("Lift your weakest health signal, %s (%d/100): %s", signalLabel(w.name), w.value, signalTip(w.name)))
		}
	} else {
		missing = append(missing, "your health score")
	}
	if u, err := tools.Usage(ctx); err == nil {
		if names := sortedFeatures(u.Features); len(names) > 0 {
			f := u.Features[names[0]]
			a.fact("topFeature", names[0])
			a.fact("topPct", strconv.Itoa(f.Pct))
			if u.NearLimit {
				steps = append(steps, fmt.Sprintf("You have used %d%% of your %s allowance; upgrade before it runs out: %s", f.Pct, featureLabel(names[0]), ad.upgrade(u.UpgradeURL)))
			} else if lf, ok := u.Features["lead_finder"]; ok && lf.Used < 5 {
				steps = append(steps, fmt.Sprintf("You have run %s this month: search your best industry and city every week to keep the pipeline full", plural(lf.Used, "lead search")))
			}
		}
	} else {
		missing = append(missing, "your plan usage")
	}
	if c, err := tools.ChurnRisks(ctx, churnThreshold, 1); err == nil && len(c.Clients) > 0 {
		top := c.Clients[0]
		steps = append(steps, fmt.Sprintf("Keep your clients: call %s first (%d%% churn risk, health %d)", top.BusinessName, top.ChurnProbability, top.HealthScore))
	}
	if leads, err := tools.RecentLeads(ctx, 10); err == nil {
		a.fact("leads", strconv.Itoa(len(leads)))
		if len(leads) == 0 {
			steps = append(steps, "Your leads sheet is empty: ask me to \"find <industry> in <city>\" to start it")
		} else {
			steps = append(steps, fmt.Sprintf("Work your %s (latest: %s): score them in one batch and call the qualified ones first", plural(len(leads), "recent lead"), firstNonEmpty(leads[0].BusinessName, leads[0].Name)))
		}
	} else {
		missing = append(missing, "your leads sheet")
	}
	if len(steps) == 0 {
		a.say("I could not reach %s just now, so I have no figures to base advice on. Please try again in a minute.", strings.Join(missing, " or "))
		return
	}
	a.say("Your next steps, from your own numbers:\n")
	for i, s := range steps {
		a.say("%d. %s.\n", i+1, strings.TrimSuffix(s, "."))
	}
	if len(missing) > 0 {
		a.say("(I could not fetch %s just now.)", strings.Join(missing, " or "))
	}
}

func (ad *Advisor) help(ctx context.Context, greet bool, tools app.Tools, a *answer, name ...string) {
	if greet {
		if len(name) > 0 && name[0] != "" {
			a.say("Hi %s! ", name[0])
		} else {
			a.say("Hi! ")
		}
	}
	if h, err := tools.Health(ctx); err == nil {
		a.say("Your health score is %d/100 (%s) right now. ", h.Score, tierWords(h.Tier))
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

type signal struct {
	name  string
	value int
}

// rankSignals orders signals weakest first; ties by name keep answers stable.
func rankSignals(m map[string]int) []signal {
	out := make([]signal, 0, len(m))
	for n, v := range m {
		out = append(out, signal{n, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].value != out[j].value {
			return out[i].value < out[j].value
		}
		return out[i].name < out[j].name
	})
	return out
}

// sortedFeatures orders features by how close they are to their limit, capped ones first.
func sortedFeatures(m map[string]app.FeatureUsage) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := m[names[i]], m[names[j]]
		if a.Unlimited != b.Unlimited {
			return b.Unlimited
		}
		if a.Pct != b.Pct {
			return a.Pct > b.Pct
		}
		if a.Used != b.Used {
			return a.Used > b.Used
		}
		return names[i] < names[j]
	})
	return names
}

var signalText = map[string][2]string{
	"loginRecency":    {"login recency", "log in a few times a week; even a quick look at new leads counts"},
	"loginFrequency":  {"login frequency", "make checking your dashboard a weekly habit"},
	"featureAdoption": {"feature adoption", "try lead scoring on your sheet and connect the webhook integration"},
	"chatEngagement":  {"chat engagement", "ask me for next steps once a week"},
	"leadActivity":    {"lead activity", "run a lead search for your best industry and city"},
	"usageTrend":      {"usage trend", "use the platform steadily rather than in bursts"},
	"planUtilisation": {"plan utilisation", "put more of your plan's allowance to work on searches and scoring"},
	"integrationUse":  {"integration use", "send your website's contact form to the inbound webhook"},
	"paymentHealth":   {"payment health", "check that your card is current so service is not interrupted"},
	"tenure":          {"tenure", "this one grows by itself as you stay with us"},
}

func signalLabel(name string) string {
	if t, ok := signalText[name]; ok {
		return t[0]
	}
	return name
}

func signalTip(name string) string {
	if t, ok := signalText[name]; ok {
		return t[1]
	}
	return "use the features behind it more often"
}

func featureLabel(f string) string { return strings.ReplaceAll(f, "_", " ") }

func planLabel(p string) string { return strings.ReplaceAll(p, "_", " ") }

func tierWords(tier string) string {
	switch tier {
	case "healthy":
		return "healthy"
	case "at_risk":
		return "at risk"
	case "critical":
		return "critical"
	default:
		return strings.ReplaceAll(tier, "_", " ")
	}
}

func where(loc string) string {
	if loc == "" {
		return ""
	}
	return " in " + loc
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, " is"):
		return fmt.Sprintf("%d %ss are", n, strings.TrimSuffix(noun, " is"))
	case strings.HasSuffix(noun, "ch"):
		return fmt.Sprintf("%d %ses", n, noun)
	default:
		return fmt.Sprintf("%d %ss", n, noun)
	}
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
func day(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// joinAnd lists items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
