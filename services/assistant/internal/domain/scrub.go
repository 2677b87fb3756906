package domain

import (
	_ "embed"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// What Scrub puts in place of what it removes. The bracketed ones name what was there when a
// pattern recognised it; every other word that is not allowed becomes phRedacted.
const (
	phRedacted = "…"
	phEmail    = "[email]"
	phLink     = "[link]"
	phID       = "[id]"
	phNumber   = "[number]"
	phAddress  = "[address]"
)

//go:embed wordlist/dictionary.txt
var dictionaryText string

// dictionary is the allow-list of words customer text keeps: about 4,000 common English words
// minus every common given name and surname and the words of business names (wordlist/generate.sh
// documents the sources). Any other word is removed, so an unknown name, a business, an email's
// local part or a street cannot show, in whatever case it is written.
var dictionary = func() map[string]bool {
	words := map[string]bool{}
	for _, line := range strings.Split(dictionaryText, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			words[line] = true
		}
	}
	return words
}()

// streetTypes are the words that end a street's name.
const streetTypes = `st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|lane|way|ct|court|pl|place|hwy|highway|pkwy|parkway|cir|circle|ter|terrace|trl|trail|sq|square|loop|row|plaza`

var (
	// Addresses go before numbers so that "12 Oak Street" is one placeholder.
	addressRe     = regexp.MustCompile(`(?i)\b\p{Nd}{1,6}[a-z]?\s+(?:[\p{L}\p{Nd}.'-]+\s+){0,4}?(?:` + streetTypes + `)\b\.?`)
	namedStreetRe = regexp.MustCompile(`(?i)\b(?:[\p{L}'-]+\s+){1,2}(?:street|avenue|boulevard|st\.|ave\.|blvd\.?)`)
	unitRe        = regexp.MustCompile(`(?i)\b(?:apt|apartment|suite|ste|unit|p\.?\s?o\.?\s+box)\.?\s*#?\s*[\p{L}\p{Nd}-]+|#\s*\p{Nd}+`)
	// roomRe is a flat, floor or room given by number ("flat two", "fl 3"); "a flat tyre" stays.
	roomRe = regexp.MustCompile(`(?i)\b(?:flat|floor|fl|room|rm|bldg|building|lot)\.?\s*#?\s*(?:\p{Nd}[\p{L}\p{Nd}-]*|(?:` + numberWordAlt + `)\b)`)
	linkRe = regexp.MustCompile(`(?i)(?:https?://|www\.)\S+|\b[\p{L}\p{Nd}-]+(?:\.[\p{L}\p{Nd}-]+)*\.[a-z]{2,24}\b\S*`)
	idRe   = regexp.MustCompile(`(?i)\p{L}[\p{L}\p{Nd}]+_[\p{L}\p{Nd}_-]{3,}|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	// timeRe is a small number with a suffix that keeps it readable: "3pm", "2nd".
	timeRe       = regexp.MustCompile(`^\p{Nd}{1,2}(?:am|pm|st|nd|rd|th)$`)
	placeholder  = regexp.MustCompile(`…|\[(?:email|link|id|number|address)\]`)
	placeholders = regexp.MustCompile(`(?:…|\[(?:email|link|id|number|address)\])(?:[\s,.;:/-]*(?:…|\[(?:email|link|id|number|address)\]))+`)
)

// Scrub keeps of free text only what cannot identify a person, a business or a tenant: words of
// the dictionary, small numbers and punctuation. Emails (written or spelled out), links,
// identifiers and addresses become named placeholders, numbers that could carry part of a phone
// number (dropNumbers, number words included) become phNumber, a name-like word an introduction
// points at ("this is …", "… here") and every other word becomes "…" (a capitalised word too,
// unless it opens a sentence or is a weekday, a month or "I"). When fewer words are kept than
// removed, nothing is kept: the gist is gone and only fragments remain.
func Scrub(text string) string {
	s := scrubSpelledMail(normalize(text))
	s = scrubEmails(s)
	s = linkRe.ReplaceAllString(s, phLink)
	s = idRe.ReplaceAllString(s, phID)
	s = addressRe.ReplaceAllString(s, phAddress)
	s = scrubSpokenAddresses(s)
	s = namedStreetRe.ReplaceAllString(s, phAddress)
	s = unitRe.ReplaceAllString(s, phAddress)
	s = roomRe.ReplaceAllString(s, phAddress)
	s = dropNumbers(s)
	s = dropIntroducedNames(s)
	s, kept := keepDictionaryWords(s)
	if removed := len(placeholder.FindAllString(s, -1)); kept == 0 || kept < removed {
		return ""
	}
	// Removing words brings numbers closer together: the rules hold for what is shown, too.
	s = dropNumbers(s)
	s = placeholders.ReplaceAllStringFunc(s, collapse)
	return strings.Join(strings.Fields(s), " ")
}

// normalize folds compatibility forms (full-width letters and digits), turns control and format
// characters into spaces and typographic apostrophes into ASCII ones.
func normalize(text string) string {
	s := norm.NFKC.String(strings.ToValidUTF8(text, " "))
	return strings.Map(func(r rune) rune {
		switch {
		case r == '’' || r == '‘' || r == 'ʼ':
			return '\''
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return ' '
		}
		return r
	}, s)
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

// keepDictionaryWords replaces every word that is not allowed with phRedacted and reports how
// many words it kept. Placeholders, numbers and punctuation pass as they are.
func keepDictionaryWords(s string) (string, int) {
	var b strings.Builder
	kept, sentenceStart := 0, true
	for i := 0; i < len(s); {
		if p := placeholderAt(s[i:]); p != "" {
			b.WriteString(p)
			i += len(p)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			b.WriteRune(r)
			if strings.ContainsRune(".!?:\n", r) {
				sentenceStart = true
			}
			i += size
			continue
		}
		j := wordEnd(s, i)
		word := s[i:j]
		switch {
		case strings.IndexFunc(word, func(r rune) bool { return !unicode.IsDigit(r) }) < 0, timeRe.MatchString(word):
			b.WriteString(word) // a number: the digit rules deal with it
		case allowedWord(word, sentenceStart):
			b.WriteString(word)
			kept++
		default:
			b.WriteString(phRedacted)
		}
		sentenceStart = false
		i = j
	}
	return b.String(), kept
}

// allowedWord reports whether a word may be shown: it is in the dictionary (or is a dictionary
// word's possessive, or one of capitalisedOK, which holds "I"), and it is not capitalised in the middle of a sentence, where capitals mark
// names, unless it is one of the capitalised words that name no one.
func allowedWord(word string, sentenceStart bool) bool {
	lower := strings.ToLower(word)
	if !dictionary[lower] && !dictionary[strings.TrimSuffix(lower, "'s")] && !capitalisedOK[lower] {
		return false
	}
	first, _ := utf8.DecodeRuneInString(word)
	return sentenceStart || !unicode.IsUpper(first) || capitalisedOK[lower]
}

// capitalisedOK are capitalised words that name no one.
var capitalisedOK = setOf(`i i'm i'll i've i'd ok okay asap monday tuesday wednesday thursday friday
	saturday sunday january february september october november december`)

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r)
}

// wordEnd returns where the word starting at i ends: letters, digits and marks, with apostrophes
// inside ("don't", "Jane's").
func wordEnd(s string, i int) int {
	j := i
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if isWordRune(r) {
			j += n
			continue
		}
		if r == '\'' && j+n < len(s) {
			if next, _ := utf8.DecodeRuneInString(s[j+n:]); unicode.IsLetter(next) {
				j += n
				continue
			}
		}
		break
	}
	return j
}

func placeholderAt(s string) string {
	if !strings.HasPrefix(s, "[") {
		return ""
	}
	for _, p := range []string{phEmail, phLink, phID, phNumber, phAddress} {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	return ""
}

// collapse turns a run of placeholders into one, the first named one if any.
func collapse(run string) string {
	if i := strings.IndexByte(run, '['); i >= 0 {
		return run[i : i+strings.IndexByte(run[i:], ']')+1]
	}
	return phRedacted
}

// Prefix scrubs text and keeps at most n characters of it, without leaving half a word or half a
// placeholder.
func Prefix(text string, n int) string {
	s := []rune(Scrub(text))
	if len(s) <= n {
		return string(s)
	}
	cut := string(s[:n])
	if isWordRune(s[n-1]) && isWordRune(s[n]) {
		if space := strings.LastIndexByte(cut, ' '); space > 0 {
			cut = cut[:space]
		}
	}
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
