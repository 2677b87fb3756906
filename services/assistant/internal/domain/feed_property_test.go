package domain_test

import (
	_ "embed"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// The property of the public feed: whatever personal data a customer's text or a label holds,
// written in whatever case and shape, none of it is shown. The generator writes names (the common
// given names and surnames of testdata/names.txt, and made-up ones), businesses, emails spelled out
// or not, and phone numbers separated in many ways or spelled in words, into ordinary sentences.

//go:embed testdata/names.txt
var namesText string

var commonNames = func() []string {
	var out []string
	for _, l := range strings.Split(namesText, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}()

var (
	syllables  = []string{"zor", "blax", "quen", "tav", "ious", "xan", "dru", "vex", "kyl", "zeb", "yor", "thra", "qui", "mox", "jeb", "oon", "prz", "ybil", "ska"}
	industries = []string{"plumbing", "roofing", "hvac", "electric", "electrical", "dental", "bakery", "landscaping", "cleaning",
		"construction", "painting", "flooring", "movers", "realty", "insurance", "salon", "spa", "barbers", "grill", "bistro",
		"pizzeria", "catering", "locksmith", "masonry", "welding", "trucking", "logistics", "automotive", "towing"}
	suffixes    = []string{"llc", "inc", "co", "corp", "ltd", "company", "group", "& sons", "bros", "enterprises", "associates", "partners", "solutions"}
	mailDomains = []string{"gmail", "yahoo", "hotmail", "icloud", "aol", "comcast", "protonmail"}
	tlds        = []string{"com", "net", "org", "us", "io"}
	digitNames  = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	// Sentences around the personal data: no digits and no spelled digits of their own.
	sentenceParts = []string{"hi", "hello there", "please call me back", "my number is", "you can reach me at", "thanks",
		"see you on Thursday", "the sink is leaking again", "can you come tomorrow morning", "my email is", "this is",
		"ask for", "from", "I'm with", "we spoke last week", "sorry I missed your call", "text me at", "write to",
		"the quote looks good", "is the appointment still on", "regards", "cheers", "my husband", "call my cell"}
)

// leaks is what must never be shown of one generated text.
type leaks struct {
	words  []string // lower case; none may be a word of the summary
	phrase []string // lower case; none may be inside the summary
}

type gen struct{ r *rand.Rand }

func (g gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// cased writes a word the ways people type it.
func (g gen) cased(w string) string {
	switch g.r.IntN(4) {
	case 0:
		return strings.ToLower(w)
	case 1:
		return strings.ToUpper(w)
	case 2:
		return strings.ToUpper(w[:1]) + strings.ToLower(w[1:])
	default:
		b := []rune(w)
		for i := range b {
			if g.r.IntN(2) == 0 {
				b[i] = unicode.ToUpper(b[i])
			} else {
				b[i] = unicode.ToLower(b[i])
			}
		}
		return string(b)
	}
}

func (g gen) name() string {
	if g.r.IntN(4) == 0 { // made up: "Zorblax"
		n := ""
		for range 2 + g.r.IntN(2) {
			n += g.pick(syllables)
		}
		return n
	}
	return g.pick(commonNames)
}

// person is a name as written: "Zara Khan", "J. Smith", "john q public", "JS".
func (g gen) person(l *leaks) string {
	first, last := g.name(), g.name()
	l.words = append(l.words, first, last)
	switch g.r.IntN(6) {
	case 0:
		return g.cased(first)
	case 1:
		return g.cased(first[:1]) + ". " + g.cased(last)
	case 2:
		return g.cased(first) + " " + g.cased(g.pick(syllables)[:1]) + ". " + g.cased(last)
	case 3:
		return strings.ToUpper(first[:1] + last[:1])
	case 4:
		return g.cased(last) + "'s"
	default:
		return g.cased(first) + " " + g.cased(last)
	}
}

// business is "wong plumbing llc", "Garcia & Sons Roofing", "ZORBLAX HVAC".
func (g gen) business(l *leaks) string {
	owner, trade, suffix := g.name(), g.pick(industries), g.pick(suffixes)
	l.words = append(l.words, owner, trade)
	if suffix != "& sons" {
		l.words = append(l.words, suffix)
	}
	switch g.r.IntN(3) {
	case 0:
		return g.cased(owner) + " " + g.cased(trade) + " " + g.cased(suffix)
	case 1:
		return g.cased(owner) + " " + g.cased(suffix) + " " + g.cased(trade)
	default:
		return g.cased(owner) + " " + g.cased(trade)
	}
}

// email is an address, written out or spelled: "jsmith84 at gmail com", "j dot smith at gmail dot com".
func (g gen) email(l *leaks) string {
	first, last := strings.ToLower(g.name()), strings.ToLower(g.name())
	local := []string{first[:1] + last + fmt.Sprint(g.r.IntN(100)), first + "." + last, first + last, first + "_" + last + fmt.Sprint(g.r.IntN(1000))}[g.r.IntN(4)]
	l.words = append(l.words, first, last)
	l.phrase = append(l.phrase, local)
	domain, tld := g.pick(mailDomains), g.pick(tlds)
	switch g.r.IntN(6) {
	case 0:
		return local + "@" + domain + "." + tld
	case 1:
		return local + " at " + domain + " " + tld
	case 2:
		return local + " at " + domain + " dot " + tld
	case 3:
		return g.cased(first) + " dot " + g.cased(last) + " at " + domain + " dot " + tld
	case 4:
		return local + " (at) " + domain + " (dot) " + tld
	default:
		return strings.ToUpper(local + " at " + domain + " dot " + tld)
	}
}

// phone is ten digits in one of many separated forms, or spelled out: "(512) 555-0199",
// "5 1 2, 5 5 5, 0 1 9 9", "51,25,55,01,99", "five one two ...". Separators stay within five
// characters, the bound the dense-digit rule is built on.
func (g gen) phone() string {
	d := make([]string, 10)
	d[0] = fmt.Sprint(2 + g.r.IntN(8))
	for i := 1; i < 10; i++ {
		d[i] = fmt.Sprint(g.r.IntN(10))
	}
	all := strings.Join(d, "")
	seps := []string{"", " ", "-", ".", ", ", " - ", "/", " , ", ",", "  ", " . ", "_"}
	switch g.r.IntN(7) {
	case 0:
		return "(" + all[:3] + ") " + all[3:6] + "-" + all[6:]
	case 1:
		s := g.pick(seps)
		return "+1 " + all[:3] + s + all[3:6] + s + all[6:]
	case 2: // every digit apart, groups apart: "5 1 2, 5 5 5, 0 1 9 9"
		in, between := g.pick([]string{" ", "-", ".", " "}), g.pick([]string{", ", " - ", " ", "  ", "; "})
		return strings.Join(d[:3], in) + between + strings.Join(d[3:6], in) + between + strings.Join(d[6:], in)
	case 3: // pairs: "51,25,55,01,99"
		s := g.pick([]string{",", ", ", " ", "-", ".", "/"})
		return all[:2] + s + all[2:4] + s + all[4:6] + s + all[6:8] + s + all[8:]
	case 4: // groups of one to four, any separator
		var b strings.Builder
		for i := 0; i < 10; {
			n := min(1+g.r.IntN(4), 10-i)
			if i > 0 {
				b.WriteString(g.pick(seps))
			}
			b.WriteString(all[i : i+n])
			i += n
		}
		return b.String()
	case 5: // spelled, perhaps mixed with digits
		words := make([]string, 10)
		for i, c := range all {
			words[i] = digitNames[c-'0']
			if g.r.IntN(4) == 0 {
				words[i] = string(c)
			}
		}
		return g.cased(strings.Join(words, g.pick([]string{" ", ", ", "-", " - "})))
	default:
		return all[:3] + g.pick(seps) + all[3:6] + g.pick(seps) + all[6:]
	}
}

// sentence embeds some personal data among ordinary words; it returns the data alone too.
func (g gen) sentence() (string, []string, leaks) {
	var l leaks
	var parts, data []string
	for range 1 + g.r.IntN(3) {
		var p string
		switch g.r.IntN(4) {
		case 0:
			p = g.person(&l)
		case 1:
			p = g.business(&l)
		case 2:
			p = g.email(&l)
		default:
			p = g.phone()
		}
		data = append(data, p)
		parts = append(parts, g.pick(sentenceParts)+" "+p)
	}
	if g.r.IntN(2) == 0 {
		parts = append(parts, g.pick(sentenceParts))
	}
	return strings.Join(parts, g.pick([]string{", ", ". ", " ", " - ", "! ", "\n"})), data, l
}

// summaryWords are the words of a summary, as the scrubber splits them, possessives split off.
func summaryWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r)
	}) {
		out[w] = true
	}
	return out
}

func digitWordsIn(s string) []string {
	var out []string
	for w := range summaryWords(s) {
		for _, d := range digitNames {
			if w == d {
				out = append(out, w)
			}
		}
	}
	return out
}

// assertNoLeak checks one rendered summary against what its input held.
func assertNoLeak(t *testing.T, summary, input string, l leaks) {
	t.Helper()
	words := summaryWords(summary)
	for _, w := range l.words {
		w = strings.ToLower(w)
		if len(w) < 2 {
			continue // an initial alone names no one
		}
		require.False(t, words[w], "name %q in %q from %q", w, summary, input)
	}
	lower := strings.ToLower(summary)
	for _, p := range l.phrase {
		require.NotContains(t, lower, strings.ToLower(p), "from %q", input)
	}
	require.Equal(t, -1, strings.IndexFunc(summary, unicode.IsDigit), "digits in %q from %q", summary, input)
	require.Empty(t, digitWordsIn(summary), "spelled digits in %q from %q", summary, input)
	require.NotContains(t, summary, "@")
}

// Every template field that takes text or a label, through the feed's own pipeline.
var piiFields = []struct {
	module, eventType, field string
}{
	{"Recall", "CustomerReplyReceived", "text"},
	{"Voice", "VoicemailTranscribed", "text"},
	{"the service", "ContactFormReceived", "text"},
	{"the service", "ContactFormReceived", "subject"},
	{"the service", "LeadCaptured", "source"},
	{"the service", "LeadCaptured", "vertical"},
	{"Voice", "MissedCallDetected", "vertical"},
	{"Recall", "ReminderSent", "channel"},
	{"Stars", "ReviewRequested", "channel"},
	{"Confirm", "AppointmentCreated", "service"},
}

func checkGenerated(t *testing.T, g gen) {
	t.Helper()
	text, data, l := g.sentence()
	for _, f := range piiFields {
		for _, value := range append([]string{text}, data...) {
			ev, err := domain.NewFeedEvent(f.module, f.eventType, now, map[string]any{f.field: value})
			if err != nil { // only an over-long text is refused
				require.Greater(t, len(value), 2000, "%s %s: %v", f.eventType, f.field, err)
				continue
			}
			assertNoLeak(t, ev.Summary, value, l)
		}
	}
	prefix := domain.Prefix(text, domain.TextPrefixChars)
	require.LessOrEqual(t, utf8.RuneCountInString(prefix), domain.TextPrefixChars)
}

func TestFeedShowsNoGeneratedPersonalData(t *testing.T) {
	t.Parallel()
	g := gen{rand.New(rand.NewPCG(10, 2026))}
	for range 5000 {
		checkGenerated(t, g)
	}
}

func FuzzFeedShowsNoGeneratedPersonalData(f *testing.F) {
	for seed := range uint64(20) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkGenerated(t, gen{rand.New(rand.NewPCG(seed, 2026))})
	})
}
