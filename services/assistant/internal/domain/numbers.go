package domain

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Numbers: digits and number words ("five", "twelve", "twenty", "hundred", "double", "oh") are
// numeric tokens, each counted as the most digits it can stand for. A run of numeric tokens apart
// only by separators that carries minRunDigits or more loses all of them, so no three digits of a
// phone number, however they are written ("5 1 2", "51 25 55", "five twelve twenty"), show together;
// and any window of denseWindow characters whose tokens carry denseDigits or more loses them all,
// so neither do the seven a phone number needs when words stand between its parts.
const (
	minRunDigits = 3
	denseWindow  = 40
	denseDigits  = 7
	// maxRunGap bounds the separators between two numeric tokens of one run ("), ", " - ").
	maxRunGap = 5
)

// numberWords maps each number word to the most digits it can stand for: "twelve" is 12,
// "twenty" 20 (or the 2 of 25), "hundred" 00, "double five" 55 and "triple five" 555.
var numberWords = func() map[string]int {
	m := map[string]int{"hundred": 2, "thousand": 3, "double": 1, "triple": 2}
	for _, w := range strings.Fields(`zero oh o nought one two three four five six seven eight nine`) {
		m[w] = 1
	}
	for _, w := range strings.Fields(`ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen
		nineteen twenty thirty forty fifty sixty seventy eighty ninety`) {
		m[w] = 2
	}
	m["fourty"] = 2 //nolint:misspell // as people write it
	return m
}()

// soundAlikes are words that sound like a digit ("won too won ate" is 1218). Each is an everyday
// word too, so a run holding one is a number only with denseDigits digits, a phone number's worth.
var soundAlikes = map[string]bool{"won": true, "to": true, "too": true, "tree": true, "for": true, "fore": true,
	"sicks": true, "ate": true, "nein": true, "niner": true}

// numberWordAlt is numberWords as a regular-expression alternation, longest first.
var numberWordAlt = func() string {
	words := make([]string, 0, len(numberWords))
	for w := range numberWords {
		if w != "o" {
			words = append(words, w)
		}
	}
	sort.Slice(words, func(i, j int) bool { return len(words[i]) > len(words[j]) })
	return strings.Join(words, "|")
}()

// numTok is a numeric token of s: its byte span, its position in characters (a number word counts
// as one, like the digit it stands for), the most digits it can carry and whether it is a
// sound-alike.
type numTok struct {
	start, end, pos, digits int
	alike                   bool
}

// numericTokens finds the digits and number words of s. A word holding digits ("3pm", "jsmith84")
// carries them; "double" and "triple" count only before another numeric token, and "and" only
// inside a spoken number ("five hundred and twelve"), carrying none.
func numericTokens(s string) []numTok {
	var toks []numTok
	var words []string // the lower-case word of each token
	pos := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			pos++
			i += size
			continue
		}
		j := wordEnd(s, i)
		word := strings.ToLower(s[i:j])
		digits := 0
		for _, r := range word {
			if unicode.IsDigit(r) {
				digits++
			}
		}
		switch n, spoken := numberWords[word]; {
		case digits > 0:
			toks, words = append(toks, numTok{start: i, end: j, pos: pos, digits: digits}), append(words, word)
			pos += utf8.RuneCountInString(word)
		case spoken || word == "and":
			toks, words = append(toks, numTok{start: i, end: j, pos: pos, digits: n}), append(words, word)
			pos++
		case soundAlikes[word]:
			toks, words = append(toks, numTok{start: i, end: j, pos: pos, digits: 1, alike: true}), append(words, word)
			pos++
		default:
			pos += utf8.RuneCountInString(word)
		}
		i = j
	}
	// Drop the joining words that join nothing: "double check", "you and me".
	out := make([]numTok, 0, len(toks))
	for k, t := range toks {
		next := k+1 < len(toks) && words[k+1] != "and" && inRun(s, t, toks[k+1])
		switch words[k] {
		case "double", "triple":
			if !next {
				continue
			}
		case "and":
			if !next || k == 0 || !inRun(s, toks[k-1], t) || (words[k-1] != "hundred" && words[k-1] != "thousand") {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// inRun reports whether two numeric tokens belong to one number: only a few separators apart.
func inRun(s string, a, b numTok) bool {
	gap := s[a.end:b.start]
	return separatorsOnly(gap) && utf8.RuneCountInString(gap) <= maxRunGap
}

// dropNumbers removes from s every run of numeric tokens carrying minRunDigits or more (denseDigits
// when a sound-alike is among them), and every numeric token with denseDigits or more carried
// within denseWindow characters; each stretch of removed tokens and their separators becomes one
// phNumber.
func dropNumbers(s string) string {
	toks := numericTokens(s)
	drop := make([]bool, len(toks))
	for first := 0; first < len(toks); {
		last, digits, need := first, toks[first].digits, minRunDigits
		for last+1 < len(toks) && inRun(s, toks[last], toks[last+1]) {
			last++
			digits += toks[last].digits
		}
		for k := first; k <= last; k++ {
			if toks[k].alike {
				need = denseDigits
			}
		}
		for k := first; k <= last && digits >= need; k++ {
			drop[k] = true
		}
		first = last + 1
	}
	for first, last, digits := 0, 0, 0; last < len(toks); last++ {
		digits += toks[last].digits
		for toks[last].pos-toks[first].pos >= denseWindow {
			digits -= toks[first].digits
			first++
		}
		for k := first; k <= last && digits >= denseDigits; k++ {
			drop[k] = true
		}
	}
	var b strings.Builder
	done := 0
	for k := 0; k < len(toks); k++ {
		if !drop[k] {
			continue
		}
		start, end := toks[k].start, toks[k].end
		for k+1 < len(toks) && drop[k+1] && separatorsOnly(s[end:toks[k+1].start]) {
			k++
			end = toks[k].end
		}
		for start > done && (s[start-1] == '(' || s[start-1] == '+') {
			start--
		}
		for end < len(s) && s[end] == ')' {
			end++
		}
		b.WriteString(s[done:start])
		b.WriteString(" " + phNumber + " ")
		done = end
	}
	b.WriteString(s[done:])
	return b.String()
}

// streetAfterRe is what follows a spelled house number in an address: one to four words, then a
// street type. A word must stand between them, so that "one way" stays.
var streetAfterRe = regexp.MustCompile(`(?i)^\s+(?:[\p{L}.'-]+,?\s+){1,4}?(?:` + streetTypes + `)\b\.?`)

// scrubSpokenAddresses replaces with phAddress every address whose house number is spelled
// ("ten north station road", "one hundred and twelve high st").
func scrubSpokenAddresses(s string) string {
	toks := numericTokens(s)
	var b strings.Builder
	done := 0
	for first := 0; first < len(toks); {
		last, alikes := first, toks[first].alike
		for last+1 < len(toks) && inRun(s, toks[last], toks[last+1]) {
			last++
			alikes = alikes && toks[last].alike
		}
		start, end := toks[first].start, toks[last].end
		// Sound-alikes alone are no house number: "walk to the high street".
		if m := streetAfterRe.FindStringIndex(s[end:]); m != nil && !alikes {
			b.WriteString(s[done:start] + phAddress)
			done = end + m[1]
		}
		first = last + 1
	}
	b.WriteString(s[done:])
	return b.String()
}

func separatorsOnly(s string) bool {
	return strings.IndexFunc(s, isWordRune) < 0
}
