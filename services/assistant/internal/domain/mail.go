package domain

import (
	"regexp"
	"strings"
	"unicode"
)

// An email address as people write it out: labels joined by "." or by "dot", "point", "period"
// (bare or in brackets), "at" (bare, in brackets or "@") between the local part and the domain:
// "river at first point net", "j dot smith (at) gmail (dot) com", "x [at] y [period] co".
const (
	mailLabel = `[\p{L}\p{Nd}_%+-]+`
	// mailStrongDot can only be a dot of an address: "dot", a bracketed word, "." inside a word.
	mailStrongDot = `\s*[\[({<]\s*(?:dot|point|period)\s*[\])}>]\s*|\s+dot\s+|\.`
	// mailWeakDot may be an ordinary word or a full stop: "at this point now", "at noon. Thanks".
	mailWeakDot = `\s+(?:point|period|full\s+stop)\s+|\s+\.\s*|\s*\.\s+`
	mailAt      = `\s*[\[({<]\s*at\s*[\])}>]\s*|\s+at(?:\s+sign)?\s+|\s*@\s*`
)

// spelledMailRe finds candidates; the last separator, the last label and a trailing top-level
// domain ("x at y com") decide whether it is an address (isSpelledMail).
var spelledMailRe = regexp.MustCompile(`(?i)` + mailLabel +
	`(?:(?:` + mailStrongDot + `|` + mailWeakDot + `|\s+(?:underscore|dash|hyphen)\s+)` + mailLabel + `)*` +
	`(?:` + mailAt + `)` + mailLabel +
	`(?:(` + mailStrongDot + `|` + mailWeakDot + `)(` + mailLabel + `))*` +
	`(?:\s+(` + topLevelDomains + `)\b)?`)

var mailWeakDotRe = regexp.MustCompile(`^(?:` + mailWeakDot + `)$`)

// topLevelDomains are the common top-level domains; a domain ending in one of them needs no dot
// ("x at gmail com"). It leaves out those that are everyday words (in, it, is, to, be, no, so, my).
const topLevelDomains = `com|net|org|edu|gov|mil|int|io|co|us|uk|ca|au|nz|ie|de|fr|es|nl|ch|se|dk|fi|pl|pt|br|mx|ar|jp|cn|kr|ru|za|ng|ke|info|biz|me|tv|app|dev|xyz|online|site|shop|store|tech|email|mail|cloud|ai`

var tldSet = setOf(strings.ReplaceAll(topLevelDomains, "|", " "))

// scrubSpelledMail replaces every address written out with phEmail.
func scrubSpelledMail(s string) string {
	return replaceSubmatchFunc(spelledMailRe, s, func(m []string) string {
		if isSpelledMail(m[1], m[2], m[3]) {
			return phEmail
		}
		return m[0]
	})
}

// isSpelledMail decides a candidate by its last dot and label and its trailing top-level domain:
// after a dot that is only ever a dot any label will do; after one that may be an ordinary word
// the label must be a top-level domain. Digits alone are a number, not a domain ("at 512.555").
func isSpelledMail(lastDot, lastLabel, tld string) bool {
	switch {
	case tld != "":
		return true
	case lastLabel == "" || strings.IndexFunc(lastLabel, unicode.IsLetter) < 0:
		return false
	case mailWeakDotRe.MatchString(lastDot):
		return tldSet[strings.ToLower(lastLabel)]
	default:
		return true
	}
}

// replaceSubmatchFunc is ReplaceAllStringFunc with the submatches given to repl.
func replaceSubmatchFunc(re *regexp.Regexp, s string, repl func([]string) string) string {
	var b strings.Builder
	done := 0
	for _, idx := range re.FindAllStringSubmatchIndex(s, -1) {
		m := make([]string, len(idx)/2)
		for i := range m {
			if idx[2*i] >= 0 {
				m[i] = s[idx[2*i]:idx[2*i+1]]
			}
		}
		b.WriteString(s[done:idx[0]])
		b.WriteString(repl(m))
		done = idx[1]
	}
	b.WriteString(s[done:])
	return b.String()
}
