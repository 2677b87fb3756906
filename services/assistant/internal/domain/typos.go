package domain

import (
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// keywords are the words recognition depends on; a word that is neither one of them nor an
// everyday English word nor a place is read as the keyword it is one slip away from ("fnd
// plumers" is "find plumbers"). Built on first use, after the synonym table.
var keywords = sync.OnceValues(func() (map[string]bool, []string) {
	k := setOf(`find search show get look list give pull fetch grab locate leads lead prospects health
		score usage churn churning plan limit limits sheet growth grow customers clients remember name
		business shop company industry please recommend advice improve allowance remaining quota
		businesses companies near around what which where about nearby`)
	for syn := range verticalSynonyms {
		if !strings.Contains(syn, " ") {
			k[syn] = true
		}
	}
	list := make([]string, 0, len(k))
	for w := range k {
		list = append(list, w)
	}
	sort.Strings(list) // corrections do not depend on map order
	return k, list
})

// maxCorrectedWords bounds the words corrected: what a message asks is said in its first words,
// and a 4,000-character message must not cost more than a short one.
const maxCorrectedWords = 40

// correctTypos replaces misspelt keywords in a lower-case message.
func correctTypos(lower string, places Gazetteer) string {
	known, _ := keywords()
	words := strings.Fields(lower)
	changed := false
	for i, w := range words {
		if i == maxCorrectedWords {
			break
		}
		core := strings.Trim(w, ".,!?;:\"'()")
		if len(core) < 3 || known[core] || dictionary[core] || !isASCIIWord(core) {
			continue
		}
		if _, ok := places.Resolve(core); ok {
			continue
		}
		if fix := nearestKeyword(core); fix != "" {
			words[i] = strings.Replace(w, core, fix, 1)
			changed = true
		}
	}
	if !changed {
		return lower
	}
	return strings.Join(words, " ")
}

func isASCIIWord(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// nearestKeyword returns the one keyword within reach of w: one edit (the first letter kept) for
// short words, two for words of seven letters or more; "" when none or several tie.
func nearestKeyword(w string) string {
	reach := 1
	if len(w) >= 7 {
		reach = 2
	}
	best, bestD, tie := "", reach+1, false
	_, list := keywords()
	for _, k := range list {
		if d := len(k) - len(w); d > reach || -d > reach {
			continue
		}
		if reach == 1 && k[0] != w[0] {
			continue
		}
		d := editDistance(w, k, reach)
		switch {
		case d < bestD:
			best, bestD, tie = k, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie || bestD > reach {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance (a swap of neighbours is one edit), or
// more than limit when it exceeds it.
func editDistance(a, b string, limit int) int {
	if utf8.RuneCountInString(a) != len(a) || utf8.RuneCountInString(b) != len(b) {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
