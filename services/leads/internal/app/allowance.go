package app

import (
	"github.com/bizassist/bizassist/libs/allowance"
)

// CodeLeadFinderLimit refuses a search when the month's lead_finder allowance is spent; the batch
// keeps its own (CodeAllowanceExhausted).
const CodeLeadFinderLimit = "lead_finder_limit_reached"

// limitError is the 402 of a refused reservation: the feature's code and message, when the
// allowance comes back, what is left and where to upgrade (analytics' page, else ours).
func limitError(code, message string, limit *allowance.LimitReached, upgradeURL string) error {
	return limit.Refusal(code, message+"; it resets at the start of next month (UTC), or upgrade for more", upgradeURL)
}
