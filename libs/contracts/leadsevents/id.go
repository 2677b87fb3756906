package leadsevents

import (
	"strings"

	"github.com/bizassist/bizassist/libs/ids"
)

// LeadID is the id of the lead with email on accountID's sheet. Email is a lead's identity
// within an account (case-insensitive), so the id is derived from it: integrations can answer
// an inbound new_lead with the id leads will give the row, and a repeat gets the same id.
func LeadID(accountID, email string) string {
	return ids.Derived("lead", accountID, strings.ToLower(strings.TrimSpace(email)))
}
