package platform

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
)

// EVENTS_CONSUMERS members of the service's group run in one process, named apart (Redis spreads
// the events among them as among replicas); one member keeps the configured or default name.
func TestConsumersAreNamedApart(t *testing.T) {
	handlers := map[string]events.Handler{"lead.written": func(context.Context, events.Envelope) error { return nil }}
	one := (&Runtime{Name: "integrations", Config: Config{Consumers: 1}}).consumers(handlers)
	require.Len(t, one, 1)
	require.Equal(t, "event consumer", one[0].Name)

	rt := &Runtime{Name: "integrations", Config: Config{Consumers: 3}}
	rt.Config.Consumer.Consumer = "pod-a"
	var names []string
	for _, w := range rt.consumers(handlers) {
		names = append(names, w.Name)
	}
	require.Equal(t, []string{"event consumer pod-a-0", "event consumer pod-a-1", "event consumer pod-a-2"}, names)
	require.ErrorContains(t, Config{Consumers: 0}.Validate(), "EVENTS_CONSUMERS must be at least 1")
}
