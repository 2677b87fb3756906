package app

import (
	"context"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// Event types this service publishes (lead.written) and consumes; their data shapes are below and
// in the README.
const (
	EventLeadWritten = "lead.written"
	EventInboundLead = "inbound.new_lead"
)

// LeadWritten is the data of lead.written; leadId is the serviceId of outbound new_lead.
type LeadWritten struct {
	LeadID       string `json:"leadId"`
	Name         string `json:"name"`
	Email        string `json:"email"`
	Phone        string `json:"phone"`
	Source       string `json:"source"`
	BusinessName string `json:"businessName"`
	Timestamp    string `json:"timestamp"`
}

func leadWrittenEvents(ctx context.Context, added []sheet.Lead) ([]events.Envelope, error) {
	envs := make([]events.Envelope, 0, len(added))
	for _, l := range added {
		env, err := events.New(ctx, EventLeadWritten, l.AccountID(), LeadWritten{
			LeadID: l.ID(), Name: l.Name(), Email: l.Email(), Phone: l.Phone(), Source: l.Source(),
			BusinessName: l.BusinessName(), Timestamp: httpx.Timestamp(l.CreatedAt()),
		})
		if err != nil {
			return nil, err
		}
		envs = append(envs, env)
	}
	return envs, nil
}
