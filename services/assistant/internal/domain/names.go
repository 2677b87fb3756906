package domain

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Introductions point at a name: "this is river", "my name is doe", "jane doe here". The words
// there are taken for a name, whatever their case and even when the dictionary holds them ("doe",
// "river", "field" name people too), unless they are function words, which name no one.
const maxNameWords = 2

// nameCues are the phrases a name follows; "here" is the word a name comes before.
var nameCues = [][]string{{"this", "is"}, {"my", "name", "is"}, {"name", "is"}, {"name's"}, {"names"}, {"i", "am", "called"}}

// functionWords cannot be names: pronouns, articles, auxiliaries, prepositions, conjunctions and
// the adverbs and verbs that stand before "here" or after "this is" in ordinary sentences.
var functionWords = setOf(`a an the this that these those my your our their his her its me you we they
	i i'm we're you're they're it's he she him them us it is are was were be been am being isn't wasn't
	not no yes so just only also still right over out in up down back near around from to at on of for
	with by about regarding re into here there where when what who how why which and or but if because
	come came coming get got go going stay staying live lived living work working worked sign start
	started click everyone everybody someone somebody anyone anybody nobody everything something
	anything nothing all both each some any more most very too really now then today tonight tomorrow
	again ok okay please thanks hi hello hey urgent important`)

type wordSpan struct {
	start, end int
	lower      string
}

// dropIntroducedNames replaces the words an introduction points at with phRedacted.
func dropIntroducedNames(s string) string {
	var ws []wordSpan
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		j := wordEnd(s, i)
		ws = append(ws, wordSpan{i, j, strings.ToLower(s[i:j])})
		i = j
	}
	name := make([]bool, len(ws))
	// nameLike is a word that may be a name, joined to the word before or after it by spaces only.
	nameLike := func(k, joined int) bool {
		w := ws[k]
		a, b := min(w.end, ws[joined].end), max(w.start, ws[joined].start)
		return strings.TrimSpace(s[a:b]) == "" && !functionWords[w.lower] &&
			strings.IndexFunc(w.lower, unicode.IsDigit) < 0 && (w.start == 0 || s[w.start-1] != '[')
	}
	for k := range ws {
		if ws[k].lower == "here" {
			for n, j := 0, k-1; n < maxNameWords && j >= 0 && nameLike(j, j+1); n, j = n+1, j-1 {
				name[j] = true
			}
		}
		for _, cue := range nameCues {
			if !cueAt(s, ws, k, cue) {
				continue
			}
			last := k + len(cue) - 1
			for n, j := 0, last+1; n < maxNameWords && j < len(ws) && nameLike(j, j-1); n, j = n+1, j+1 {
				name[j] = true
			}
		}
	}
	var b strings.Builder
	done := 0
	for k, w := range ws {
		if name[k] {
			b.WriteString(s[done:w.start])
			b.WriteString(phRedacted)
			done = w.end
		}
	}
	b.WriteString(s[done:])
	return b.String()
}

// cueAt reports whether the words from k on are cue, apart by spaces only.
func cueAt(s string, ws []wordSpan, k int, cue []string) bool {
	if k+len(cue) > len(ws) {
		return false
	}
	for i, c := range cue {
		if ws[k+i].lower != c || (i > 0 && strings.TrimSpace(s[ws[k+i-1].end:ws[k+i].start]) != "") {
			return false
		}
	}
	return true
}
