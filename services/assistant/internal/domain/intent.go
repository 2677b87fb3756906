package domain

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
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

	IntentInform     Intent = "inform"       // the owner told us something: remembered, never acted on
	IntentRecall     Intent = "recall"       // "what is my name?": answered from what was told
	IntentConfirm    Intent = "confirm"      // "yes" with nothing offered
	IntentDecline    Intent = "decline"      // "no thanks" to an offer
	IntentSmallTalk  Intent = "small_talk"   // thanks, how are you, bye
	IntentLeadDetail Intent = "lead_detail"  // "the top 3", "which is best?": the last results again
	IntentOutOfScope Intent = "out_of_scope" // something the assistant cannot do
)

// Topics are the intents a chat exchange may be labelled with in events and the public feed.
var Topics = map[Intent]bool{
	IntentGreeting: true, IntentHelp: true, IntentFindLeads: true, IntentLeadsSheet: true,
	IntentHealth: true, IntentUsage: true, IntentChurn: true, IntentGrowth: true, IntentConversation: true,
}

// Topic is the feed label of an exchange of intent i: our own conversational intents are no
// topics, and the last results again are a lead search.
func (i Intent) Topic() Intent {
	switch {
	case i == IntentLeadDetail:
		return IntentFindLeads
	case Topics[i]:
		return i
	}
	return IntentHelp
}

// Slots are the parameters a lead search needs.
type Slots struct {
	Vertical string `json:"vertical,omitempty"`
	Location string `json:"location,omitempty"`
	Count    int    `json:"count,omitempty"` // how many leads were asked for, 0 for the default
}

// merge fills the empty slots of s from fallback.
func (s Slots) merge(fallback Slots) Slots {
	if s.Vertical == "" {
		s.Vertical = fallback.Vertical
	}
	if s.Location == "" {
		s.Location = fallback.Location
	}
	if s.Count == 0 {
		s.Count = fallback.Count
	}
	return s
}

// Turn is a recognised message.
type Turn struct {
	Intent   Intent
	Slots    Slots
	Why      bool // asks for the reason behind the previous answer
	FollowUp bool // resolved from the session's previous turn
	// Request is an explicit request (an imperative, or a question asking for leads): the one
	// kind of message on which an action that spends, writes or sends may run.
	Request bool
	// Confirmed is the offer a "yes" accepted: only that action, with those slots, may run.
	Confirmed *Offer
	Facts     Profile // what the message states about the owner
	Ask       string  // recall: name, business, industry, city, goals or all
	// Score is an explicit request to score or qualify leads (which spends lead_scoring).
	Score bool
	Top   int  // lead detail: "the top 3"
	Best  bool // lead detail: "which has the best score?"
}

// Permission is what the turn allows of side-effecting actions.
func (t Turn) Permission() Permission {
	return Permission{Request: t.Request, Score: t.Score, Confirmed: t.Confirmed}
}

// Recognizer reads messages; Places decides what is a place (nil: nothing but a ZIP code is).
type Recognizer struct{ Places Gazetteer }

// Recognize reads a message without a gazetteer (see Recognizer.Recognize).
func Recognize(message string, prev State, hints Slots) Turn {
	return Recognizer{}.Recognize(message, prev, hints)
}

// read intents: free and immediate, in priority order.
var readRules = []struct {
	intent Intent
	re     *regexp.Regexp
}{
	{IntentChurn, regexp.MustCompile(`\b(churn\w*|at[ -]risk|about to (leave|cancel)|might (leave|cancel)|retention|retain|losing (clients|customers))\b`)},
	{IntentHealth, regexp.MustCompile(`\b(health|healthy|account score|my score|tier)\b`)},
	{IntentUsage, regexp.MustCompile(`\b(usage|limits?|quota|allowance|pql|how much (have i|did i|i've)|remaining|near(ing)? (my |the )?limit|upgrade|my plan|plan am i|searches (do i have )?left|credits)\b`)},
	{IntentLeadsSheet, regexp.MustCompile(`\b(my leads|leads sheet|lead sheet|sheet|how many leads|latest leads|recent leads|saved leads|leads i (have|saved|got)|leads do i have|our leads|my lead list|my pipeline)\b`)},
}

var (
	growthRe = regexp.MustCompile(`\b(grow\w*|next steps?|what should i (do|focus)|improve|advice|advise|recommend\w*|strategy|more (customers|clients|sales|revenue|business)|increase|priorit\w*|tips?)\b`)
	helpRe   = regexp.MustCompile(`\b(help|what can you do|what do you do|how do(es)? (this|it|you) work|commands|what are you|who are you|what can i ask|what else)\b`)
	whyRe    = regexp.MustCompile(`\b(why|how come|what('s| is) (behind|causing|driving)|explain|reason)\b`)

	politeLead = `^(?:(?:ok(?:ay)?|so|now|alright|then|hey|hi|hello|please|pls|plz|kindly|just|also|great|cool|thanks)[,!.]?\s+)*`
	// requestRe: an imperative, possibly softened ("can you", "I'd like you to", "is it possible
	// to"), a "would you mind finding", or a "can I get".
	requestRe = regexp.MustCompile(politeLead + `(?:(?:(?:can|could|would|will|can't|cant)\s+(?:you|u|ya)\s+(?:please\s+|pls\s+|just\s+)?|(?:i|we)\s+(?:want|need|would like|'d like)\s+you\s+to\s+|help me\s+|let'?s\s+|go ahead and\s+|i want to\s+|i'd like to\s+|i need to\s+|(?:is|would) it (?:be )?possible (?:for you\s+)?to\s+` +
		`|(?:(?:do|did) you think|i (?:was|am|'m) wondering (?:if|whether)|i wonder (?:if|whether)|i'd appreciate it if|i would appreciate it if|it would be great if|it'd be great if)\s+(?:you|u)\s+(?:could|can|would|might)\s+)?` +
		`(?:find|search|show|get|look|list|give|pull|fetch|grab|bring|send|locate|dig|hunt|scout|source|generate|run|lookup|gimme|discover|track down|check for|pick)` +
		`|(?:(?:would|do)\s+(?:you|u)\s+)?mind\s+(?:finding|searching|looking|pulling|getting|showing|listing|fetching|grabbing|digging|hunting|sourcing|locating|sending|tracking)` +
		`|(?:can|could|may)\s+(?:i|we)\s+(?:get|have|see))\b`)
	// anaphorRe: a request whose object is a pro-form ("can you find some?", "pull a few"): what it
	// asks for is named elsewhere, in the message or in the offer just made.
	anaphorRe = regexp.MustCompile(`\b(?:find|search for|get|pull|show|look up|grab|fetch|list|dig up|track down|locate|send)\s+(?:me\s+|us\s+)?(?:some|them|those|these|a few|a couple|any|one|a list)?\s*(?:(?:for|to)\s+(?:me|us)\s*)?(?:please|now)?[\s?.!]*$`)
	// desireRe: "I need leads", "we're looking for roofers".
	desireRe = regexp.MustCompile(`\b(?:i|we)\s*(?:'m|am|are|'re)?\s*(?:need|want|would like|'d like|looking for|searching for|hunting for|in need of)\s+(?:to\s+(?:find|get|see|search for|look for)\s+)?`)
	// leadQuestionRe: questions that ask for leads.
	leadQuestionRe = regexp.MustCompile(`^(?:(?:who|which)(?:'re| are| r| is)?\s+(?:the\s+|some\s+|any\s+|good\s+|best\s+|top\s+)?|what(?:'re| are| r)\s+(?:the\s+|some\s+|any\s+|good\s+|best\s+|top\s+)?|what\s+(?:\w+\s+){1,2}(?:are|is)\s+(?:there\s+)?(?:in|near|around)\s(?:the\s+|some\s+|any\s+|good\s+|best\s+|top\s+)?|(?:are|is) there\s|any\s|got any\s|do you have\s|have you got\s|know any\s|do you know (?:any|of)\s|where can i (?:find|get)\s|where are (?:the|some)?\s*|how many\s)`)
	leadWordRe     = regexp.MustCompile(`\b(leads?|prospects?|businesses|companies|contacts)\b`)
	findVerbRe     = regexp.MustCompile(`\b(find|search|look for|get me|show me)\b`)
	searchWordRe   = regexp.MustCompile(`\b(find|search)`)
	scoreRe        = regexp.MustCompile(`\b(score|qualify|rate|grade)\b.*\b(leads?|them|these|those|sheet)\b`)
	scoreAskRe     = regexp.MustCompile(`^(?:(?:please|ok(?:ay)?|now|so)[,]?\s+)*(?:(?:can|could|would|will) (?:you|u)\s+(?:please\s+)?)?(?:score|qualify|rate|grade)\b`)

	questionStartRe = regexp.MustCompile(`^(who|what|which|where|when|why|how|is|are|do|does|did|can|could|would|will|should|any|have|has)\b`)
	copulaRe        = regexp.MustCompile(`\b(are|is|was|were|been|seem|look|charge|keep|do|did|get|got|'re|could|would|should|need|needs|use)\b`)

	confirmRe        = regexp.MustCompile(`^(?:yes|yeah|yea|yep|yup|ya|y|sure|ok(?:ay)?|k|please|please do|do it|go ahead|go for it|sounds good|why not|absolutely|of course|definitely|sure thing|let'?s do it|let'?s go|perfect|great|alright|do that|go on|si|sí|oui|ja|yes please|please go ahead|that would be great|that'd be great|i'd like that|yes i do|yes i would)(?:[\s,!.]+(?:please|thanks|thank you|do it|go ahead|sure|yes|let'?s go|go for it|that would be great))*[\s!.]*$`)
	declineRe        = regexp.MustCompile(`^(?:no|nope|nah|not now|no thanks|no thank you|don'?t|do not|cancel|never mind|nevermind|maybe later|skip(?: it)?|not yet|stop|no need|not really|don'?t bother|no,? not now|not today)(?:[\s,!.]+(?:thanks|thank you|not now|not yet|maybe later|later|i'm good|that's ok|it's fine|don'?t))*[\s!.]*$`)
	greetingRe       = regexp.MustCompile(`^(?:hi|hii+|hello|helo|hey|heya|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|day)|morning|hola|buenos d[ií]as|buenas(?: tardes| noches)?|bonjour|bonsoir|salut|hallo|guten (?:tag|morgen|abend)|servus|moin|ciao|buongiorno|ol[aá]|oi|bom dia|boa tarde|hej|hei|god morgen|goedemorgen|goedendag|namaste|namaskar|salaam|salam|marhaba|merhaba|shalom|konnichiwa|ni hao|annyeong(?:haseyo)?|privet|czesc|cześć|ahoj|szia|jambo|habari|aloha|kia ora|g'day|привет|здравствуйте|你好|您好|こんにちは|안녕하세요|مرحبا|السلام عليكم|שלום|नमस्ते|γεια σας|γεια|xin chào|สวัสดี)(?:[\s,]+(?:there|all|everyone|team|bot|assistant|friend|folks|y'all|again))*[\s!.,?]*$`)
	greetingPrefixRe = regexp.MustCompile(`(?i)^(?:hi|hello|hey|hiya|howdy|good (?:morning|afternoon|evening)|hola|bonjour|hallo)(?:\s+there)?[,!.]?\s+`)
	smallTalkRe      = regexp.MustCompile(`^(?:thanks?(?: you)?(?: so much| a lot| very much)?|thx|ty|cheers|cool|great|awesome|nice|perfect|ok(?:ay)?|k|got it|good|lol|haha+|bye|goodbye|bye bye|see you|see ya|later|how are you(?: doing| today)?|how's it going|what's up|whats up|sup|good night|you're welcome|no worries|alright|fine|i see|makes sense|sounds good|wow|hmm+|gracias|merci|danke|obrigad[oa]|grazie|you're (?:great|awesome|the best)|good job|well done|nice work)(?:[\s,]+(?:thanks|thank you|a lot|so much|man|mate|buddy|again|bye|for that|for the help))*[\s!.,?]*$`)

	recallRe = regexp.MustCompile(`\b(?:what(?:'s| is| was)|whats|do you (?:remember|know|recall)|tell me|remind me(?: of)?|say)\s+(?:my|our|me my)\s+(name|business(?: name)?|shop(?: name)?|company(?: name)?|store(?: name)?|bakery(?: name)?|salon(?: name)?|industry|trade|line of work|city|town|location|goals?|plan for)\b` +
		`|\b(?:what(?:'s| is)|whats)\s+(?:my|our)\s+(?:business|shop|company|store|bakery|salon|restaurant|firm)\s+called\b|\b(?:what(?:'s| is)|whats)\s+the name of (?:my|our) (?:business|shop|company|store|bakery|salon|restaurant|firm)\b|\bwho am i\b|\bwhat do you (?:know|remember) about (?:me|us|my business)\b|\bwhere am i (?:based|located|from)\b|\bwhere (?:is|are) (?:my|our) (?:business|shop|company|store)\b|\bwhat (?:city|town) (?:am i|are we|is my)\b|\bwhat (?:do|did) i (?:do|sell|tell you|say)\b|\bwhat (?:industry|business|line of work) am i in\b|\bdo you remember (?:me|what i (?:said|told you))\b|\bwhat are (?:my|our) goals\b|\bwhat(?:'s| is) my goal\b|\bremember my name\b`)
	hereRe      = regexp.MustCompile(`\b(?:here|near me|nearby|around me|around here|my (?:area|city|town|neighbou?rhood)|our (?:area|city|town)|locally|local|where i am|where we are)\b`)
	myTradeRe   = regexp.MustCompile(`\b(?:my|our) (?:industry|trade|line of work|field|vertical|niche|kind of business|type of business|business|shop|company)\b|\blike (?:mine|me|us|ours)\b|\bsame (?:industry|trade)\b`)
	topRe       = regexp.MustCompile(`^(?:(?:ok(?:ay)?|so|and|now|just)[,]?\s+)*(?:(?:show|give|list|send|tell)\s+(?:me\s+)?|only\s+|just\s+)?(?:the\s+|your\s+)?(?:top|best|first)\s+(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\b`)
	bestRe      = regexp.MustCompile(`\b(?:which|who|what)\b.*\b(?:best|highest|top|strongest|most promising|hottest|first)\b|\bwho should i (?:call|contact|reach out to|email) first\b|\bwhich (?:one|of them|of those|lead) should i\b`)
	aboutRe     = regexp.MustCompile(`(?i)^(?:and|what about|how about|ok(?:ay)? and|now|same for|same in|same thing (?:for|in)|also|and also|then|try|ok(?:ay)? what about|and how about)\s+(?:in\s+|for\s+|near\s+|with\s+)?(.+?)\s*[?.!]*$`)
	aboutTailRe = regexp.MustCompile(`\s+(?:too|instead|then|as well|please|now)$`)
	prepRe      = regexp.MustCompile(`(?i)\b(?:in|near|around|within|outside|close to|based in|located in|out of|from|for|(?:my|our) (?:city|town) is)\s+`)
	zipRe       = regexp.MustCompile(`\b\d{5}\b`)
	countRe     = regexp.MustCompile(`\b(?:get|find|show|give|pull|list|send|need|want|fetch|grab|me|top)\s+(?:me\s+|us\s+)?(\d{1,2}|three|five|ten|a dozen)\b`)
	// rawIndustryRe catches an industry we have no synonym for: "find <x> leads", "leads for <x>".
	rawIndustryRe = regexp.MustCompile(`(?i)\b(?:find|search|show me|get me|look for)\s+(?:me\s+)?(?:some\s+|\d+\s+)?([a-z][a-z &-]{2,30}?)\s+(?:leads|prospects|businesses|companies|in|near)\b|\bleads for\s+([a-z][a-z &-]{2,30}?)(?:\s+(?:in|near)\b|[?.!]|$)`)
	spaceRe       = regexp.MustCompile(`\s+`)

	nameRe     = regexp.MustCompile(`(?i)\b(?:my name is|my name's|name's|call me|i am called|i'm called|people call me|i go by|everyone calls me)\s+([\p{L}][\p{L}'’-]*(?:\s+[\p{L}][\p{L}'’-]*)?)`)
	imNameRe   = regexp.MustCompile(`(?:^|[.!,]\s*|\b(?:hi|hello|hey)[,!]?\s+)(?i:i'm|i am|im|this is)\s+(\p{Lu}[\p{L}'’-]+)`)
	businessRe = regexp.MustCompile(`(?i)\b(?:called|named|(?:business|shop|company|store|bakery|salon|restaurant|cafe|firm|practice|studio|clinic|agency|gym|spa)(?:'s)? name is|name of (?:my|our|the) (?:business|shop|company|store|bakery|salon|restaurant|cafe|firm|practice|studio|clinic|agency|gym|spa) is)\s+["“]?([\p{L}0-9][\p{L}0-9'’&. -]{0,58}?)["”]?\s*(?:[,!?;]|\.(?:\s|$)|\s+and\s|\s+in\s|\s+(?:which|that|we|i)\s|$)`)
	// calledNameRe ends the words before "called" when it names a person ("I'm called Zoë").
	calledNameRe = regexp.MustCompile(`(?i)(?:\bi'?m|\bi am|\bi was|\bme|\bpeople|\bfriends)\s*$`)
	// ownedRe: a business name in capitals after "we're", "I run", "owner of", "Dana from", or
	// before "is my shop".
	ownedRe = regexp.MustCompile(`(?:\b(?i:we're|we are|i own|we own|i run|we run|i'm the owner of|i am the owner of|owner of)|\b(?i:i'm|i am|this is)\s+\p{Lu}[\p{L}'’-]+\s+(?i:from|with|at))\s+` + properName +
		`|` + properName + `\s+(?i:is|'s)\s+(?i:my|our)\s+(?i:business|shop|company|store|bakery|salon|restaurant|firm|practice|studio|brand)\b`)
	hereNameRe  = regexp.MustCompile(`(?:^|[.!,]\s*)(\p{Lu}[\p{L}'’-]+)\s+here\b`)
	industryRe  = regexp.MustCompile(`\b(?:i|we)(?:'m| am|'re| are| run| own| have| manage| operate| started| opened| do| work in| work as| sell|'ve been| have been| used to be| was| were)\b|\b(?:my|our) (?:business|shop|company|store|trade|industry|line of work|job) is\b|\bi'm in\b|\bis (?:my|our) (?:trade|industry|line of work|field|job)\b`)
	cityStmtRe  = regexp.MustCompile(`\b(?:i|we)(?:'m| am|'re| are| live| work| run| own| have| operate| do business)\b|\b(?:based|located)\b|\b(?:my|our) (?:business|shop|company|store|bakery|salon|city|town) is\b|\bi'm from\b`)
	goalRe      = regexp.MustCompile(`(?i)\b(?:(?:my|our) (?:main |big |biggest |top |first )?(?:goal|aim|priority|objective|plan)s?(?: for (?:this|next) (?:year|month|quarter))? (?:is|are|is to|are to)|(?:i|we) (?:want|hope|plan|aim|need|'d like|would like|am trying|'m trying|are trying|'re trying) to)\s+(?:to\s+)?((?:grow|get|reach|hit|double|triple|increase|open|hire|expand|make|sell|win|land|book|build|launch|add|reduce|cut|improve|attract|start|bring|fill)\b[^.!?]{0,80})`)
	notNameWord = setOf(`looking trying wondering here new just not so the a an interested curious fine good ok okay sure glad happy running in from at with and but
		based located open closed busy ready also still`)
)

// properName is a run of capitalised words, joined by "&", "and", "of" or "the": "Flourish
// Patisserie", "The Daily Grind", "Crumb & Co".
const properName = `((?:The\s+)?\p{Lu}[\p{L}0-9'’.-]*(?:\s*&\s*\p{Lu}[\p{L}0-9'’.-]*|(?:\s+(?:and|of|the))?\s+\p{Lu}[\p{L}0-9'’.-]*)*)`

// Recognize reads a message in the light of the session (the previous turn, what the owner told
// us, what was offered) and of slot hints the client sent in its context.
func (r Recognizer) Recognize(message string, prev State, hints Slots) Turn {
	t := r.recognize(message, prev, hints)
	if t.Intent != IntentInform && t.Confirmed == nil && !t.Score {
		lower := strings.TrimSpace(strings.ToLower(head(message, maxRecognizedBytes)))
		t.Score = scoreRe.MatchString(lower) && (requestRe.MatchString(lower) || scoreAskRe.MatchString(lower))
	}
	return t
}

// maxRecognizedBytes bounds what of a message is read for its intent: what a message asks is
// said early, and a 4,000-character message must not cost the recognizer ten times a short one.
// (A model is still given all of it.)
const maxRecognizedBytes = 600

func (r Recognizer) recognize(message string, prev State, hints Slots) (t Turn) {
	places := chatPlaces{r.Places}
	text := spaceRe.ReplaceAllString(strings.TrimSpace(head(message, maxRecognizedBytes)), " ")
	lower := correctTypos(strings.ToLower(text), places)
	core := strings.Trim(lower, " .!?,;:")

	// Whole-message replies.
	switch {
	case confirmRe.MatchString(core):
		if prev.Offer != nil {
			o := *prev.Offer
			return Turn{Intent: intentOf(o.Action), Slots: o.Slots, Confirmed: &o, FollowUp: true}
		}
		return Turn{Intent: IntentConfirm}
	case declineRe.MatchString(core):
		if prev.Offer != nil {
			return Turn{Intent: IntentDecline, FollowUp: true}
		}
		return Turn{Intent: IntentSmallTalk}
	case greetingRe.MatchString(core):
		return Turn{Intent: IntentGreeting}
	case smallTalkRe.MatchString(core):
		return Turn{Intent: IntentSmallTalk}
	}
	lower = greetingPrefixRe.ReplaceAllString(lower, "")
	text = greetingPrefixRe.ReplaceAllString(text, "")

	question := strings.HasSuffix(core, "?") || strings.HasSuffix(strings.TrimSpace(lower), "?") || questionStartRe.MatchString(lower)
	// A message may state and ask at once ("I run a bakery in Denver. Find bakeries there."):
	// each sentence is read for a request, and the facts come from the ones that ask nothing.
	request := false
	var statedText, askedText []string
	for _, sentence := range sentences(text) {
		if asks(greetingPrefixRe.ReplaceAllString(correctTypos(strings.ToLower(sentence), places), "")) {
			request = true
			askedText = append(askedText, sentence)
		} else {
			statedText = append(statedText, sentence)
		}
	}
	stmt := strings.Join(statedText, " ")
	facts := r.facts(stmt, correctTypos(strings.ToLower(stmt), places), places, false)
	if request && len(statedText) == 0 {
		facts = r.facts(text, lower, places, true) // only a name ("I'm Dave, find roofers")
	}
	profile := prev.Profile.Merge(facts)
	defer func() { t.Facts = facts }() // what a message states is kept whatever else it asks
	why := whyRe.MatchString(lower)

	if recallRe.MatchString(lower) {
		return Turn{Intent: IntentRecall, Ask: recallAsk(lower), Facts: facts}
	}

	hadLeads := len(prev.Leads) > 0 || prev.Intent == IntentFindLeads || prev.Intent == IntentLeadDetail
	if hadLeads {
		if m := topRe.FindStringSubmatch(core); m != nil {
			return Turn{Intent: IntentLeadDetail, Slots: prev.Slots, Top: numberWord(m[1]), FollowUp: true}
		}
		if bestRe.MatchString(lower) && findVertical(lower) == "" && !searchWordRe.MatchString(lower) {
			return Turn{Intent: IntentLeadDetail, Slots: prev.Slots, Best: true, FollowUp: true}
		}
	}

	// "and in Dallas?", "what about roofers?", "Dallas?": the subject changes, the question does
	// not; a phrase that is neither a known industry nor a place is not searched for.
	if m := aboutRe.FindStringSubmatch(text); m != nil || (hadLeads && len(strings.Fields(core)) <= 3 && !why) {
		phrase := core
		if m != nil {
			phrase = m[1]
		}
		phrase = aboutTailRe.ReplaceAllString(strings.Trim(phrase, " ?.!"), "")
		if t, ok := r.about(phrase, prev, places); ok {
			return t
		}
		if m != nil {
			return Turn{Intent: IntentOutOfScope, FollowUp: prev.Intent != IntentNone}
		}
	}

	slotText := text
	if request && len(statedText) > 0 {
		slotText = strings.Join(askedText, " ") // what is asked for, not what is told
	}
	slotLower := correctTypos(strings.ToLower(slotText), places)
	slots := Slots{Vertical: findVertical(slotLower), Location: findLocation(slotText, places)}
	anaphoric := request && slots == (Slots{}) && anaphorIn(askedText, places)
	if anaphoric {
		slots = antecedent(Slots{Vertical: findVertical(lower), Location: findLocation(text, places)}, prev)
	}
	if slots.Vertical == "" && myTradeRe.MatchString(lower) {
		slots.Vertical = profile.Industry
	}
	if slots.Location == "" && hereRe.MatchString(lower) {
		slots.Location = profile.City
	}
	if m := countRe.FindStringSubmatch(lower); m != nil {
		slots.Count = min(numberWord(m[1]), 10)
	}
	stated := !facts.IsZero() && !request

	for _, rule := range readRules {
		if rule.re.MatchString(lower) && !stated {
			return Turn{Intent: rule.intent, Why: why}
		}
	}

	if request && slots.Vertical == "" && slots.Location == "" && prev.Intent == IntentFindLeads && strings.Contains(lower, "more") {
		// "find more" repeats the last search.
		return Turn{Intent: IntentFindLeads, Slots: prev.Slots.merge(Slots{Count: slots.Count}), FollowUp: true, Request: true}
	}
	leadTopic := anaphoric || slots.Vertical != "" || leadWordRe.MatchString(lower) || myTradeRe.MatchString(lower) ||
		(slots.Location != "" && findVerbRe.MatchString(lower))
	if request && leadTopic && !growthOnly(lower, slots) {
		if prev.Intent == IntentFindLeads && slots.Vertical == "" {
			slots = slots.merge(Slots{Vertical: prev.Slots.Vertical})
		}
		return Turn{Intent: IntentFindLeads, Slots: r.fill(slots, hints, profile), Request: true, Why: why}
	}

	if stated {
		return Turn{Intent: IntentInform, Facts: facts, Slots: Slots{Vertical: profile.Industry, Location: profile.City}}
	}
	if growthRe.MatchString(lower) {
		return Turn{Intent: IntentGrowth, Why: why}
	}
	if helpRe.MatchString(lower) && slots.Vertical == "" { // "help me with dentists in Tampa" is offered
		return Turn{Intent: IntentHelp}
	}

	if why && prev.Intent != IntentNone {
		intent := prev.Intent
		if intent == IntentLeadDetail {
			intent = IntentFindLeads
		}
		return Turn{Intent: intent, Slots: prev.Slots, Why: true, FollowUp: true}
	}

	if slots.Vertical != "" {
		if !question && copulaRe.MatchString(lower) {
			return Turn{Intent: IntentInform, Slots: r.fill(slots, hints, profile)}
		}
		// A bare "plumbers in Austin" names a search without asking for it: it is offered.
		return Turn{Intent: IntentFindLeads, Slots: r.fill(slots, hints, profile)}
	}
	return Turn{Intent: IntentOutOfScope}
}

// head is s cut to at most n bytes, at a word boundary when there is one.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexAny(s[:n], " \t\n")
	if cut <= 0 {
		cut = n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return s[:cut]
}

// asks reports a request in one lower-case sentence.
func asks(l string) bool {
	l = strings.TrimSpace(l)
	return requestRe.MatchString(l) || leadQuestionRe.MatchString(l) || desiresLeads(l)
}

// sentenceRe ends a sentence, or a clause that turns to a request (", can you …", " - could you …").
var sentenceRe = regexp.MustCompile(`(?i)[.!?;]+(?:\s+|$)|(?:,|\s[-–—])\s*((?:(?:so|and|but)\s+)?(?:can you|could you|would you|will you|please|pls)\b)`)

// sentences splits text where sentenceRe matches; a clause keeps its "can you".
func sentences(text string) []string {
	var out []string
	start := 0
	for _, m := range sentenceRe.FindAllStringSubmatchIndex(text, -1) {
		end, next := m[0], m[1]
		if m[2] >= 0 { // keep "can you …" with its clause
			next = m[2]
		}
		if seg := strings.TrimSpace(text[start:end]); seg != "" {
			out = append(out, seg)
		}
		start = next
	}
	if seg := strings.TrimSpace(text[start:]); seg != "" {
		out = append(out, seg)
	}
	return out
}

// anaphorIn reports a request among the asked sentences whose object is a pro-form ("find some").
func anaphorIn(asked []string, places Gazetteer) bool {
	for _, sentence := range asked {
		if anaphorRe.MatchString(correctTypos(strings.ToLower(sentence), places)) {
			return true
		}
	}
	return false
}

// antecedent is what "find some" refers to: what the rest of the message names, else the search
// just offered, else the search just run.
func antecedent(named Slots, prev State) Slots {
	switch {
	case named.Vertical != "" || named.Location != "":
		return named
	case prev.Offer != nil && prev.Offer.Action == ActionFindLeads:
		return prev.Offer.Slots
	case prev.Intent == IntentFindLeads:
		return Slots{Vertical: prev.Slots.Vertical, Location: prev.Slots.Location}
	}
	return Slots{}
}

// desiresLeads reads "I need leads", "we're looking for roofers", not "I want to hire two more".
func desiresLeads(lower string) bool {
	loc := desireRe.FindStringIndex(lower)
	if loc == nil {
		return false
	}
	rest := strings.Fields(lower[loc[1]:])
	rest = rest[:min(len(rest), 5)]
	head := strings.Join(rest, " ")
	return leadWordRe.MatchString(head) || findVertical(head) != ""
}

// growthOnly tells "get more customers" (advice) from "get me customers in Austin" (a search).
func growthOnly(lower string, s Slots) bool {
	return s.Vertical == "" && s.Location == "" && growthRe.MatchString(lower) && !strings.Contains(lower, "lead")
}

// about resolves the phrase of a follow-up as an industry or a place.
func (r Recognizer) about(phrase string, prev State, places Gazetteer) (Turn, bool) {
	lowerPhrase := strings.ToLower(phrase)
	lowerPhrase = strings.TrimPrefix(lowerPhrase, "the ")
	next := Slots{}
	if v := findVertical(lowerPhrase); v != "" && len(strings.Fields(lowerPhrase)) <= 4 {
		next.Vertical = v
	}
	if loc, ok := places.Resolve(strings.TrimPrefix(strings.TrimPrefix(phrase, "in "), "near ")); ok {
		next.Location = loc
	} else if loc := findLocation(phrase, places); loc != "" {
		next.Location = loc
	}
	if next.Vertical == "" && next.Location == "" {
		return Turn{}, false
	}
	switch {
	case prev.Intent == IntentFindLeads || prev.Intent == IntentLeadDetail:
		return Turn{Intent: IntentFindLeads, Slots: next.merge(Slots{Vertical: prev.Slots.Vertical, Location: prev.Slots.Location}), FollowUp: true, Request: true}, true
	case prev.Offer != nil:
		return Turn{Intent: IntentFindLeads, Slots: next.merge(prev.Offer.Slots), FollowUp: true}, true
	case next.Vertical != "":
		return Turn{Intent: IntentFindLeads, Slots: next}, true
	}
	return Turn{}, false
}

// fill completes a search's slots from the client's hints, then from what the owner told us.
func (r Recognizer) fill(s Slots, hints Slots, p Profile) Slots {
	return s.merge(hints).merge(Slots{Vertical: p.Industry, Location: p.City})
}

// facts finds what a statement says about the owner.
func (r Recognizer) facts(text, lower string, places Gazetteer, request bool) Profile {
	var p Profile
	if m := nameRe.FindStringSubmatch(text); m != nil {
		p.Name = nameWords(m[1])
	} else if m := imNameRe.FindStringSubmatch(text); m != nil && nameLike(m[1], places) {
		p.Name = m[1]
	} else if m := hereNameRe.FindStringSubmatch(text); m != nil && nameLike(m[1], places) {
		p.Name = m[1]
	}
	if request {
		return p // "find plumbers in Austin" says nothing about the owner's own trade
	}
	p.Business = businessName(text, places)
	if p.Business != "" {
		// The name's words are a name: "Flourish" is no misspelt "florist", and no place.
		text = strings.Replace(text, p.Business, "", 1)
		lower = correctTypos(strings.ToLower(text), places)
	}
	if industryRe.MatchString(lower) {
		p.Industry = findVertical(lower)
	}
	if p.Industry == "" && p.Business != "" {
		p.Industry = verticalIn(strings.ToLower(p.Business)) // "Acme Roofing", spelt as it is
	}
	if cityStmtRe.MatchString(lower) || p.Industry != "" {
		p.City = findLocation(text, places)
	}
	if m := goalRe.FindStringSubmatch(text); m != nil && !strings.Contains(strings.ToLower(m[1]), "lead") {
		p.Goals = []string{strings.TrimSpace(m[1])}
	}
	return p
}

// nameLike reports a word that may be a person's name: not a function word, an industry or a place.
func nameLike(w string, places Gazetteer) bool {
	lower := strings.ToLower(w)
	if notNameWord[lower] || functionWords[lower] || verticalSynonyms[lower] != "" {
		return false
	}
	_, isPlace := places.Resolve(w)
	return !isPlace
}

// businessName finds the name a statement gives the owner's business.
func businessName(text string, places Gazetteer) string {
	if m := businessRe.FindStringSubmatchIndex(text); m != nil && !calledNameRe.MatchString(text[:m[0]]) {
		name := strings.TrimSpace(strings.TrimRight(text[m[2]:m[3]], " ."))
		if !strings.HasPrefix(strings.ToLower(name), "after ") { // "named after my grandmother"
			return name
		}
	}
	for _, m := range ownedRe.FindAllStringSubmatchIndex(text, -1) {
		var name string
		for g := 2; g < len(m); g += 2 {
			if m[g] >= 0 {
				name += text[m[g]:m[g+1]]
			}
		}
		name = strings.TrimSpace(name)
		first := strings.Fields(strings.TrimPrefix(name, "The "))[0]
		if _, isPlace := places.Resolve(name); !isPlace && nameLike(first, places) && endsClause(text[m[1]:]) &&
			verticalIn(strings.ToLower(name)) != strings.ToLower(name) {
			return name
		}
	}
	return ""
}

// clauseWords may follow a business name that ends its clause: "I run Flourish Patisserie in
// Denver", "we're Acme Roofing and we need leads".
var clauseWords = setOf(`and in with at on near since for from out of here downtown which that who where we i but so or`)

// endsClause reports whether rest, what follows a capitalised name after "I run" or "we're",
// leaves it a name: the end, punctuation or a clause word. "I run Facebook ads" names a tool
// being run, not the business.
func endsClause(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	if rest == "" || strings.ContainsRune(".,!?;:-–—)\"”", []rune(rest)[0]) {
		return true
	}
	next, _, _ := strings.Cut(rest, " ")
	return clauseWords[strings.ToLower(strings.Trim(next, ".,!?;:"))]
}

// verticalIn is the industry the synonym table finds in a lower-case phrase, without guessing.
func verticalIn(lower string) string {
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
	return ""
}

// nameWords keeps the words of an introduced name up to the first function word.
func nameWords(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		if functionWords[strings.ToLower(w)] || notNameWord[strings.ToLower(w)] {
			break
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

func recallAsk(lower string) string {
	switch {
	case strings.Contains(lower, "name") && !strings.Contains(lower, "name of") && !strings.Contains(lower, "business name") && !strings.Contains(lower, "shop name") && !strings.Contains(lower, "company name") && !strings.Contains(lower, "store name"):
		return "name"
	case strings.Contains(lower, "who am i"):
		return "name"
	case strings.Contains(lower, "goal") || strings.Contains(lower, "plan for"):
		return "goals"
	case strings.Contains(lower, "industry") || strings.Contains(lower, "trade") || strings.Contains(lower, "line of work") || strings.Contains(lower, "what do i do") || strings.Contains(lower, "what did i do") || strings.Contains(lower, "sell"):
		return "industry"
	case strings.Contains(lower, "city") || strings.Contains(lower, "town") || strings.Contains(lower, "where") || strings.Contains(lower, "location"):
		return "city"
	case strings.Contains(lower, "called") || strings.Contains(lower, "business") || strings.Contains(lower, "shop") || strings.Contains(lower, "company") || strings.Contains(lower, "store") || strings.Contains(lower, "bakery") || strings.Contains(lower, "salon"):
		return "business"
	}
	return "all"
}

func intentOf(action string) Intent {
	if action == ActionFindLeads {
		return IntentFindLeads
	}
	return Intent(action)
}

func numberWord(s string) int {
	switch s {
	case "one":
		return 1
	case "two":
		return 2
	case "three":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	case "six":
		return 6
	case "seven":
		return 7
	case "eight":
		return 8
	case "nine":
		return 9
	case "ten":
		return 10
	case "a dozen":
		return 12
	}
	n, _ := strconv.Atoi(s)
	return n
}

// findVertical returns the industry a message names, canonicalised through the synonym table, or
// the raw phrase of a "find X leads" request when the table does not know it.
func findVertical(lower string) string {
	if v := verticalIn(lower); v != "" {
		return v
	}
	if m := rawIndustryRe.FindStringSubmatch(lower); m != nil {
		raw := strings.TrimSpace(m[1] + m[2])
		if !stopIndustry[raw] && !stopIndustry[strings.Fields(raw)[0]] {
			return raw
		}
	}
	return ""
}

var stopIndustry = setOf(`me more some new good the best any local leads lead prospects businesses companies
	customers clients my our businesses for a an top first few all us them those these other`)

// findLocation returns the first phrase after "in", "near", ... that the gazetteer resolves
// (the longest such phrase of up to five words), or a ZIP code.
func findLocation(text string, places Gazetteer) string {
	for _, idx := range prepRe.FindAllStringIndex(text, -1) {
		words := strings.Fields(text[idx[1]:])
		n := 0
		for n < len(words) && n < 5 {
			n++
			if strings.ContainsAny(words[n-1], ".?!;") {
				break
			}
		}
		for k := n; k >= 1; k-- {
			if place, ok := places.Resolve(strings.Join(words[:k], " ")); ok {
				return place
			}
		}
	}
	if z := zipRe.FindString(text); z != "" {
		return z
	}
	return ""
}

// verticalSynonyms maps the words people use to the industry term the lead finder searches for.
var verticalSynonyms = map[string]string{}

func init() {
	for canonical, words := range map[string][]string{
		"plumbing":         {"plumber", "plumbers", "plumbing"},
		"dental":           {"dentist", "dentists", "dental", "dental offices", "orthodontist", "orthodontists", "dental practice"},
		"roofing":          {"roofer", "roofers", "roofing"},
		"hvac":             {"hvac", "heating", "air conditioning", "ac repair"},
		"electrical":       {"electrician", "electricians", "electrical"},
		"landscaping":      {"landscaper", "landscapers", "landscaping", "lawn care", "gardeners"},
		"restaurant":       {"restaurant", "restaurants", "diner", "diners"},
		"salon":            {"salon", "salons", "hair salon", "hair salons", "barber", "barbers", "barbershops", "barbershop", "hairdresser", "hairdressers"},
		"legal":            {"lawyer", "lawyers", "attorney", "attorneys", "law firm", "law firms", "legal"},
		"accounting":       {"accountant", "accountants", "accounting", "cpa", "cpas", "bookkeepers", "bookkeeping"},
		"chiropractic":     {"chiropractor", "chiropractors", "chiropractic"},
		"auto repair":      {"auto repair", "mechanic", "mechanics", "auto shops", "auto shop", "garages"},
		"cleaning":         {"cleaning", "cleaners", "maid service", "janitorial", "cleaning company"},
		"real estate":      {"real estate", "realtor", "realtors", "real estate agents"},
		"fitness":          {"gym", "gyms", "fitness", "personal trainers", "yoga studios", "yoga studio"},
		"veterinary":       {"vet", "vets", "veterinarian", "veterinarians", "veterinary", "animal hospitals"},
		"bakery":           {"bakery", "bakeries", "bakers", "baker"},
		"cafe":             {"cafe", "cafes", "coffee shop", "coffee shops"},
		"florist":          {"florist", "florists", "flower shops", "flower shop"},
		"pest control":     {"pest control", "exterminator", "exterminators"},
		"photography":      {"photographer", "photographers", "photography"},
		"construction":     {"contractor", "contractors", "construction", "builders", "general contractors"},
		"painting":         {"painter", "painters", "painting"},
		"insurance":        {"insurance", "insurance agents", "insurance agencies"},
		"spa":              {"spa", "spas", "med spa", "med spas", "massage"},
		"pet grooming":     {"pet grooming", "groomers", "dog groomers"},
		"medical":          {"doctor", "doctors", "clinic", "clinics", "physicians", "medical"},
		"physical therapy": {"physical therapy", "physical therapists", "physiotherapists"},
		"moving":           {"movers", "moving companies", "moving company"},
		"locksmith":        {"locksmith", "locksmiths"},
	} {
		for _, w := range words {
			verticalSynonyms[w] = canonical
		}
	}
}
