package domain

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Placeholders that replace what Scrub removes. They start with '[' so later passes leave them be.
const (
	phEmail   = "[email]"
	phLink    = "[link]"
	phID      = "[id]"
	phPhone   = "[phone]"
	phNumber  = "[number]"
	phAddress = "[address]"
	phName    = "[name]"
)

var (
	// Addresses go before numbers and names so that "12 Oak Street" is one placeholder.
	addressRe     = regexp.MustCompile(`(?i)\b\p{Nd}{1,6}[a-z]?\s+(?:[\p{L}\p{Nd}.'-]+\s+){0,4}?(?:st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|lane|way|ct|court|pl|place|hwy|highway|pkwy|parkway|cir|circle|ter|terrace|trl|trail|sq|square|loop|row|plaza)\b\.?`)
	namedStreetRe = regexp.MustCompile(`(?i)\b(?:[\p{L}'-]+\s+){1,2}(?:street|avenue|boulevard|st\.|ave\.|blvd\.?)`)
	unitRe        = regexp.MustCompile(`(?i)\b(?:apt|apartment|suite|ste|unit|p\.?\s?o\.?\s+box)\.?\s*#?\s*[\p{L}\p{Nd}-]+|#\s*\p{Nd}+`)
	linkRe        = regexp.MustCompile(`(?i)(?:https?://|www\.)\S+|\b[\p{L}\p{Nd}-]+(?:\.[\p{L}\p{Nd}-]+)*\.[a-z]{2,24}\b\S*`)
	spelledMailRe = regexp.MustCompile(`(?i)\S+\s*(?:\(at\)|\[at\]|\s+at\s+)\s*\S+\s*(?:\(dot\)|\[dot\]|\s+dot\s+)\s*\S+`)
	idRe          = regexp.MustCompile(`(?i)[\p{L}\p{Nd}]{2,}_[\p{L}\p{Nd}_-]{3,}|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	// numberSpanRe is a run of digits with the separators phone numbers are written with.
	numberSpanRe = regexp.MustCompile(`[+(]?\p{Nd}(?:[\p{Nd} ().\-/]*\p{Nd})?`)
	honorificRe  = regexp.MustCompile(`(?i)\b(?:mr|mrs|ms|mx|miss|dr|prof|sir|madam)\.?\s+[\p{L}'-]+`)
	introRe      = regexp.MustCompile(`(?i)\b(my name is|name's|this is|i am|i'm|im|it's|signed|regards,?|thanks,?|thank you,?|cheers,?|ask for|speak (?:to|with)|talk to|sincerely,?|from)\s+([\p{L}'-]+)`)
	placeholders = regexp.MustCompile(`(\[(?:email|link|id|phone|number|address|name)\])(?:[\s,.;:-]*\[(?:email|link|id|phone|number|address|name)\])+`)
)

// Scrub removes from free text everything that could identify a person, a business or a tenant:
// emails, links and domains, identifiers, phone numbers in any common format, street addresses,
// numbers of three digits or more, and names (honorifics, introductions, a list of common names,
// and every capitalised word but weekdays, months and common sentence openers). It errs on the
// side of removing too much: the public feed only ever needs the gist.
func Scrub(text string) string {
	s := norm.NFKC.String(strings.ToValidUTF8(text, " "))
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, s)
	s = scrubEmails(s)
	s = spelledMailRe.ReplaceAllString(s, phEmail)
	s = linkRe.ReplaceAllString(s, phLink)
	s = idRe.ReplaceAllString(s, phID)
	s = addressRe.ReplaceAllString(s, phAddress)
	s = namedStreetRe.ReplaceAllString(s, phAddress)
	s = unitRe.ReplaceAllString(s, phAddress)
	s = numberSpanRe.ReplaceAllStringFunc(s, scrubNumber)
	s = honorificRe.ReplaceAllString(s, phName)
	s = introRe.ReplaceAllStringFunc(s, scrubIntro)
	s = scrubNames(s)
	s = placeholders.ReplaceAllString(s, "$1")
	return strings.Join(strings.Fields(s), " ")
}

// scrubEmails replaces every whitespace-separated token holding an '@'.
func scrubEmails(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	fields := strings.FieldsFunc(s, unicode.IsSpace)
	for i, f := range fields {
		if strings.Contains(f, "@") {
			fields[i] = phEmail
		}
	}
	return strings.Join(fields, " ")
}

// scrubNumber turns a span of 7+ digits into a phone placeholder and shorter spans holding a run
// of 3+ digits (house numbers, ZIP codes, account numbers) into a number placeholder.
func scrubNumber(span string) string {
	digits, run, longest := 0, 0, 0
	for _, r := range span {
		if unicode.IsDigit(r) {
			digits++
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	switch {
	case digits >= 7:
		return phPhone
	case longest >= 3:
		return phNumber
	default:
		return span
	}
}

func scrubIntro(m string) string {
	sub := introRe.FindStringSubmatch(m)
	word := strings.ToLower(strings.Trim(sub[2], "'-"))
	if introStop[word] || strings.HasPrefix(sub[2], "[") {
		return m
	}
	return sub[1] + " " + phName
}

// introStop are words that follow "this is", "I'm" and the like without being a name.
var introStop = setOf(`a an the my your our his her their to for about regarding re just not so very really
	still going calling asking interested looking wondering checking following writing texting available ok
	okay fine sorry late here there urgent in on at with new back out running sure glad happy trying
	hoping reaching contacting replying following-up confirming canceling cancelling rescheduling
	booking free busy done ready good great also only now today tomorrow that this it what who you we
	me us them all any no yes please`)

// scrubNames replaces listed names in any case and capitalised words other than common ones
// (weekdays, months, "I") and, at the start of a sentence, common openers.
func scrubNames(s string) string {
	words := strings.Fields(s)
	sentenceStart := true
	for i, w := range words {
		core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
		core = strings.TrimSuffix(strings.TrimSuffix(core, "'s"), "'")
		switch {
		case core == "" || strings.HasPrefix(w, "["):
		case commonNames[strings.ToLower(core)]:
			words[i] = replaceCore(w, core)
		case isCapitalised(core) && !capitalisedOK[strings.ToLower(core)] &&
			(!sentenceStart || !sentenceStarters[strings.ToLower(core)]):
			// At the start of a sentence only words that commonly open one are kept.
			words[i] = replaceCore(w, core)
		}
		sentenceStart = strings.ContainsAny(w[len(w)-1:], ".!?:") || w == "-"
	}
	return strings.Join(words, " ")
}

func replaceCore(word, core string) string {
	i := strings.Index(word, core)
	end := i + len(core)
	// "John's" loses the possessive too.
	rest := strings.TrimPrefix(strings.TrimPrefix(word[end:], "'s"), "'")
	return word[:i] + phName + rest
}

func isCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// Prefix scrubs text and keeps at most n characters of it, without leaving half a placeholder.
func Prefix(text string, n int) string {
	s := Scrub(text)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := string([]rune(s)[:n])
	if open := strings.LastIndexByte(cut, '['); open >= 0 && !strings.Contains(cut[open:], "]") {
		cut = cut[:open]
	}
	return strings.TrimSpace(cut)
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// sentenceStarters are words that open a sentence and are not names even before one.
var sentenceStarters = setOf(`hi hello hey hiya dear thanks thank thx ty please yes yeah yep no nope ok okay
	sure great perfect awesome cool good fine wonderful excellent lovely nice sorry unfortunately
	can could would will shall should may might must is are was were am be been do does did have has had
	i i'm i'll i've i'd we we're we'll our my me you your you're they their he she it it's its this that
	these those there here the a an and but so or if then also actually maybe just still not any all some
	what what's when when's where where's how how's why who which whose let let's see sounds got get
	need needs want wanted looking running calling checking following confirming confirm confirmed
	cancel cancelled canceled reschedule rescheduled book booked booking done received paid payment
	invoice appointment quote estimate price cost service question quick call text email message
	morning afternoon evening tonight today tomorrow yesterday next last soon later now after before
	around about for from in on at to with of by hope hoping appreciate appreciated love loved happy
	glad interested wondering oh wow hmm absolutely definitely thx np sounds`)

// capitalisedOK are capitalised words that name no one.
var capitalisedOK = setOf(`i i'm i'll i've i'd ok okay am pm monday tuesday wednesday thursday friday
	saturday sunday mon tue tues wed thu thur thurs fri sat sun january february march may july september
	october november december jan feb mar jul sep sept oct nov dec christmas thanksgiving easter asap faq
	usa us tv ac hvac diy eta sms wi-fi wifi google yelp facebook instagram zoom covid pdf`)

// commonNames are frequent US given names and surnames that are not also everyday words, so they
// are removed even when written in lower case.
var commonNames = setOf(`james john robert michael william david richard joseph thomas charles christopher
	daniel matthew anthony donald steven paul andrew joshua kenneth kevin brian george timothy ronald
	edward jason jeffrey ryan jacob gary nicholas eric jonathan stephen larry justin scott brandon benjamin
	samuel gregory alexander patrick dennis jerry tyler aaron jose adam nathan henry zachary douglas peter
	kyle noah ethan jeremy walter christian keith roger terry austin sean gerald carl harold dylan arthur
	lawrence jordan jesse bryan billy bruce gabriel joe logan alan juan albert willie elijah wayne randy
	vincent mason roy ralph bobby russell bradley philip eugene mary patricia jennifer linda elizabeth
	barbara susan jessica sarah karen lisa nancy betty sandra margaret ashley kimberly emily donna michelle
	carol amanda melissa deborah stephanie rebecca sharon laura cynthia dorothy amy kathleen angela shirley
	brenda emma anna pamela nicole samantha katherine christine helen debra rachel carolyn janet maria
	catherine heather diane olivia julie joyce victoria ruth virginia lauren kelly christina joan evelyn
	judith andrea hannah megan cheryl jacqueline martha madison teresa gloria sara janice ann kathryn abigail
	sophia frances jean alice judy isabella julia amber denise danielle marilyn beverly charlotte
	natalie theresa diana brittany doris kayla alexis lori marie ava mia harper luna liam oliver elena
	jane doe tom tim mike chris matt dan dave steve jim bob kate katie liz beth jen jenny alex ben nick tony
	greg josh zach eli ella chloe zoe lily leah nora ruby eva maya aria layla sofia camila scarlett riley
	aubrey carlos luis miguel ahmed mohammed muhammad priya raj yuki hiroshi ivan olga fatima
	smith johnson williams jones garcia miller davis rodriguez martinez hernandez lopez gonzalez
	wilson anderson taylor thomas moore jackson martin lee perez thompson harris sanchez clark
	ramirez lewis robinson walker allen wright torres nguyen flores adams nelson
	baker rivera campbell mitchell carter roberts gomez phillips evans turner diaz parker cruz
	edwards collins reyes stewart morris morales murphy rogers gutierrez ortiz morgan cooper peterson
	bailey kelly howard ramos kim cox richardson watson brooks chavez james bennett
	mendoza ruiz hughes alvarez castillo sanders patel myers ross foster jimenez`)
