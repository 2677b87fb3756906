package advisor

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/bizassist/bizassist/services/assistant/internal/app"
)

// The account's figures in words: the leads sheet, health, usage, churn and growth steps.

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

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// day keeps the date of an ISO 8601 timestamp.
func day(ts string) string { return ts[:min(len(ts), 10)] }
