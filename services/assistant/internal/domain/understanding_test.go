package domain_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// utterance is one labelled line of testdata/understanding.
type utterance struct {
	line               int
	context            []string
	message            string
	intent             domain.Intent
	vertical, location string
	act                bool
	// remembers are the facts the session must hold once the message is read ("" when unlabelled).
	remembers domain.Profile
	labelled  bool
}

func loadCorpus(t testing.TB, name string) []utterance {
	t.Helper()
	f, err := os.Open("testdata/understanding/" + name)
	require.NoError(t, err)
	defer f.Close()
	var out []utterance
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "|")
		var remembers string
		if last := cols[len(cols)-1]; strings.Contains(last, "=") { // the optional facts column
			remembers, cols = last, cols[:len(cols)-1]
		}
		if len(cols) == 6 { // no context column
			cols = append(cols[:1], append([]string{""}, cols[1:]...)...)
		}
		require.Len(t, cols, 7, "%s:%d: want 6 columns after the leading |", name, n)
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		u := utterance{line: n, message: cols[2], intent: domain.Intent(cols[3]), vertical: cols[4], location: cols[5], act: cols[6] == "y"}
		require.Contains(t, []string{"y", "n"}, cols[6], "%s:%d", name, n)
		if remembers != "" {
			u.remembers, u.labelled = parseFacts(t, remembers), true
		}
		// The conversation so far and the message: "earlier >> earlier >> message".
		turns := strings.Split(strings.Trim(cols[1]+" >> "+cols[2], " >"), " >> ")
		u.context, u.message = turns[:len(turns)-1], turns[len(turns)-1]
		out = append(out, u)
	}
	require.NoError(t, sc.Err())
	return out
}

// parseFacts reads "name=Dana; business=Flourish Patisserie; industry=bakery; city=Austin".
func parseFacts(t testing.TB, s string) domain.Profile {
	t.Helper()
	var p domain.Profile
	for _, kv := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		require.True(t, ok, "facts column: %q", s)
		switch k {
		case "name":
			p.Name = v
		case "business":
			p.Business = v
		case "industry":
			p.Industry = v
		case "city":
			p.City = v
		default:
			require.Failf(t, "facts column", "unknown fact %q", k)
		}
	}
	return p
}

// fakeResults stand for a search that ran.
var fakeResults = []domain.LeadRef{{Name: "Barton Creek Plumbing", Score: 91}, {Name: "Lone Star Pipes", Score: 84}}

// understand replays the context through the recognizer, as the chat does turn by turn, and
// reads the message. acts reports whether a side-effecting action would be let run; after is
// what the session remembers of the owner then.
func understand(u utterance) (turn domain.Turn, acts bool, after domain.Profile) {
	var state domain.State
	for _, m := range append(u.context, u.message) {
		turn = recognize(m, state, domain.Slots{})
		ran := turn.Intent == domain.IntentFindLeads && turn.Slots.Vertical != "" && turn.Permission().Allows(domain.ActionFindLeads, turn.Slots)
		var leads []domain.LeadRef
		if ran {
			leads = fakeResults
		}
		state = state.After(turn, ran, leads)
	}
	perm := turn.Permission()
	acts = (turn.Intent == domain.IntentFindLeads && perm.Allows(domain.ActionFindLeads, turn.Slots)) ||
		perm.Allows(domain.ActionScoreLeads, domain.Slots{})
	return turn, acts, state.Profile
}

// remembered reports whether every labelled fact is what the session holds.
func remembered(want, got domain.Profile) bool {
	return (want.Name == "" || want.Name == got.Name) && (want.Business == "" || want.Business == got.Business) &&
		(want.Industry == "" || want.Industry == got.Industry) && (want.City == "" || strings.EqualFold(want.City, got.City))
}

type score struct{ total, intents, slots, slotsChecked, acts, facts, factsChecked int }

func measure(t *testing.T, name string, verbose bool) score {
	var s score
	for _, u := range loadCorpus(t, name) {
		turn, acts, profile := understand(u)
		s.total++
		where := fmt.Sprintf("%s:%d %q", name, u.line, u.message)
		if turn.Intent == u.intent {
			s.intents++
		} else if verbose {
			t.Logf("%s: intent %q, want %q", where, turn.Intent, u.intent)
		}
		if acts == u.act {
			s.acts++
		}
		// An action that spends, writes or sends on a message that did not ask for it fails at once.
		if acts && !u.act {
			t.Errorf("%s: a side-effecting action would run on a message that did not ask for it (%+v)", where, turn)
		}
		if u.act && !acts && verbose {
			t.Logf("%s: an explicit request would not run", where)
		}
		if u.vertical != "" || u.location != "" {
			s.slotsChecked++
			ok := slotMatches(u.vertical, turn.Slots.Vertical) && slotMatches(u.location, turn.Slots.Location)
			if ok {
				s.slots++
			} else if verbose {
				t.Logf("%s: slots %+v, want vertical %q location %q", where, turn.Slots, u.vertical, u.location)
			}
		}
		if u.labelled {
			s.factsChecked++
			if remembered(u.remembers, profile) {
				s.facts++
			} else if verbose {
				t.Logf("%s: remembers %+v, want %+v", where, profile, u.remembers)
			}
		}
	}
	return s
}

func slotMatches(want, got string) bool {
	switch want {
	case "":
		return true
	case "-":
		return got == ""
	}
	return strings.EqualFold(want, got)
}

// pct is n of d in percent; nothing checked is nothing missed.
func pct(n, d int) float64 {
	if d == 0 {
		return 100
	}
	return 100 * float64(n) / float64(d)
}

// TestUnderstandingCorpus measures the recognizer on the labelled corpus: it must read at least
// 95% of the intents right in each part, keep at least 95% of the labelled facts, and never let
// an action run on a message that does not ask for it. The held-out part is not used to tune the
// rules; both figures are in the README.
func TestUnderstandingCorpus(t *testing.T) {
	t.Parallel()
	for _, part := range []string{"tune.txt", "heldout.txt"} {
		s := measure(t, part, part == "tune.txt") // the held-out part reports its figures only
		t.Logf("%s: %d utterances; intent %.1f%% (%d), slots %.1f%% (%d of %d checked), action decision %.1f%% (%d), remembered facts %.1f%% (%d of %d checked)",
			part, s.total, pct(s.intents, s.total), s.intents, pct(s.slots, s.slotsChecked), s.slots, s.slotsChecked, pct(s.acts, s.total), s.acts,
			pct(s.facts, s.factsChecked), s.facts, s.factsChecked)
		require.GreaterOrEqual(t, pct(s.intents, s.total), 95.0, "%s: intent accuracy", part)
		require.GreaterOrEqual(t, pct(s.facts, s.factsChecked), 95.0, "%s: remembered facts", part)
	}
}

// BenchmarkRecognize is the recognizer's share of an offline chat turn, over the corpus.
func BenchmarkRecognize(b *testing.B) {
	corpus := loadCorpus(b, "tune.txt")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		u := corpus[i%len(corpus)]
		recognize(u.message, domain.State{}, domain.Slots{})
	}
}

// BenchmarkRecognizeLongestMessage is a message of the most characters chat accepts, every word
// misspelt, the worst case of keyword correction.
func BenchmarkRecognizeLongestMessage(b *testing.B) {
	msg := strings.Repeat("fnd plumers nera austn, ", domain.MaxMessageChars/24)
	b.ReportAllocs()
	for range b.N {
		recognize(msg, domain.State{}, domain.Slots{})
	}
}
