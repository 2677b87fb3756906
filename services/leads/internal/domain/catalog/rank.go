package catalog

// The lead-finder rank, 0 to 100, is
//
//	rank    = match + quality
//	match   = 50 when the business's vertical is one the industry names,
//	           0 when only the full text (name, vertical, categories) matches the industry
//	quality = round(0.35 * gapScore + 0.15 * completeness)        (0 to 50)
//
// so a business in the asked-for vertical never ranks below a text-only match, and among equals
// the one with the most to gain (gap score) and the most complete contact data comes first.
// quality is stored with each business so that a search reads the best rows off an index
// instead of scoring every match.
const (
	VerticalMatchPoints = 50
	TextMatchPoints     = 0
)

// Quality is the stored, query-independent part of the rank.
func Quality(gapScore, completeness int) int {
	return (35*gapScore + 15*completeness + 50) / 100
}
