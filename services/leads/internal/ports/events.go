package ports

import (
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/leads/internal/app"
)

// EventHandlers are the events the leads consumer group takes.
func EventHandlers(a app.Application) map[string]events.Handler {
	return map[string]events.Handler{
		app.EventInboundLead: a.Inbound.Handle,
	}
}
