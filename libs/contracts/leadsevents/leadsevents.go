// Package leadsevents is leads' event contract (see package contracts).
package leadsevents

import "github.com/bizassist/bizassist/libs/isotime"

// LeadWritten is published when a lead joins an account's sheet; the envelope's accountId is the
// sheet's account.
const LeadWritten = "lead.written"

// LeadWrittenData is the payload of lead.written; LeadID is the serviceId of outbound new_lead.
// InboundID is the inbound.new_lead the lead came from, when it did (absent in events of earlier
// versions).
type LeadWrittenData struct {
	LeadID       string       `json:"leadId"`
	Name         string       `json:"name"`
	Email        string       `json:"email"`
	Phone        string       `json:"phone"`
	Source       string       `json:"source"`
	BusinessName string       `json:"businessName"`
	Timestamp    isotime.Time `json:"timestamp"`
	InboundID    string       `json:"inboundId,omitempty"`
}
