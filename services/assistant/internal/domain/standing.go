package domain

import "time"

// What one account may put on the public feed (issue 24, item 3): any self-registered account can
// send contact forms, so its share of the feed is bounded and its customers' words are quoted only
// once it is in good standing.
const (
	// FeedShare is the most events of one account among the FeedSize shown.
	FeedShare = 5
	// QuoteProbation is how old an account on the free plan must be before text from it is quoted.
	QuoteProbation = 30 * 24 * time.Hour
)

// paidPlans are the plans someone pays for; any other plan, known or not, is not one.
var paidPlans = setOf(`growth full_stack`)

// Standing is what the feed knows of an account from identity's events.
type Standing struct {
	Known     bool
	Plan      string
	CreatedAt time.Time // zero until account.created is seen
	Disabled  bool
}

// MayQuote reports whether customer text from the account may be shown for an event at `at`: the
// account is on a paid plan, or is older than QuoteProbation, and is not disabled. An account the
// feed has not heard of is not in good standing.
func (s Standing) MayQuote(at time.Time) bool {
	switch {
	case !s.Known, s.Disabled:
		return false
	case paidPlans[s.Plan]:
		return true
	default:
		return !s.CreatedAt.IsZero() && at.Sub(s.CreatedAt) >= QuoteProbation
	}
}
