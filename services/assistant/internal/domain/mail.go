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

// mailStartRe finds the start of a candidate: a local part, "at" and the domain's first label.
var mailStartRe = regexp.MustCompile(`(?i)` + mailLabel +
	`(?:(?:` + mailStrongDot + `|` + mailWeakDot + `|\s+(?:underscore|dash|hyphen)\s+)` + mailLabel + `)*` +
	`(?:` + mailAt + `)` + mailLabel)

var (
	// mailDotRe is one more label of the domain, after a dot that is only ever a dot (group 1) or
	// one that may be a word (group 2).
	mailDotRe = regexp.MustCompile(`(?i)^(?:(` + mailStrongDot + `)|(` + mailWeakDot + `))(` + mailLabel + `)`)
	// mailTLDRe is a top-level domain without a dot: "x at gmail com".
	mailTLDRe    = regexp.MustCompile(`(?i)^\s+(?:` + topLevelDomains + `)\b`)
	firstLabelRe = regexp.MustCompile(`^` + mailLabel)
	// mailTailRe is "at" and a domain right after an address: then the address was a local part.
	mailTailRe = regexp.MustCompile(`(?i)^(?:` + mailAt + `)` + mailLabel + `(?:(?:` + mailStrongDot + `|` + mailWeakDot + `)` + mailLabel + `)*`)
)

// maxMailLabels bounds how many more labels a domain is searched for.
const maxMailLabels = 4

// topLevelDomains are the common top-level domains; a domain ending in one of them needs no dot
// ("x at gmail com"). It leaves out those that are everyday words (in, it, is, to, be, no, so, my).
const topLevelDomains = `com|net|org|edu|gov|mil|int|io|co|us|uk|ca|au|nz|ie|de|fr|es|nl|ch|se|dk|fi|pl|pt|br|mx|ar|jp|cn|kr|ru|za|ng|ke|info|biz|me|tv|app|dev|xyz|online|site|shop|store|tech|email|mail|cloud|ai`

var tldSet = setOf(strings.ReplaceAll(topLevelDomains, "|", " "))

// scrubSpelledMail replaces every address written out with phEmail. A candidate that is not one
// ("look at this point now") gives up only its first word, so an address the candidate overlaps
// ("me at river at first point net") is still found.
func scrubSpelledMail(s string) string {
	var b strings.Builder
	for {
		m := mailStartRe.FindStringIndex(s)
		if m == nil {
			break
		}
		if end := mailEnd(s, m[1]); end > 0 {
			b.WriteString(s[:m[0]] + phEmail)
			s = s[end:]
			// "me at field.market (at) blue io": what looked like the domain was the local part.
			for tail := mailTailRe.FindString(s); tail != ""; tail = mailTailRe.FindString(s) {
				s = s[len(tail):]
			}
			continue
		}
		skip := m[0] + len(firstLabelRe.FindString(s[m[0]:]))
		b.WriteString(s[:skip])
		s = s[skip:]
	}
	b.WriteString(s)
	return b.String()
}

// mailEnd returns where the address whose domain's first label ends at i ends, or 0 when there is
// none: the domain needs a dot, either one that is only ever a dot before a label with a letter,
// or a word that may be a dot ("point", " . ") before a top-level domain, or a top-level domain
// after a space. Digits alone are a number, not a domain ("at 5.30").
func mailEnd(s string, first int) int {
	end, i := 0, first
	for range maxMailLabels {
		m := mailDotRe.FindStringSubmatchIndex(s[i:])
		if m == nil {
			break
		}
		label := s[i+m[6] : i+m[7]]
		if strings.IndexFunc(label, unicode.IsLetter) >= 0 && (m[2] >= 0 || tldSet[strings.ToLower(label)]) {
			end = i + m[1]
		}
		i += m[1]
	}
	at := end
	if at == 0 {
		at = first
	}
	if tld := mailTLDRe.FindString(s[at:]); tld != "" {
		return at + len(tld)
	}
	return end
}
