package catalog

import "strings"

// spellingVariants are the ways a catalog row may write the words place data spells out.
var spellingVariants = map[string][]string{
	"saint": {"st.", "st"}, "sainte": {"ste.", "ste"}, "fort": {"ft.", "ft"}, "mount": {"mt.", "mt"},
}

// CitySpellings is the lower-case ways a catalog row may write a city the gazetteer resolved:
// the name itself and, for Saint, Fort and Mount, the abbreviated forms ("saint louis", "st.
// louis", "st louis"). Most cities have one spelling.
func CitySpellings(city string) []string {
	out := []string{strings.ToLower(city)}
	words := strings.Fields(out[0])
	for i, w := range words {
		for _, v := range spellingVariants[w] {
			alt := append(append(append([]string{}, words[:i]...), v), words[i+1:]...)
			out = append(out, strings.Join(alt, " "))
		}
	}
	return out
}
