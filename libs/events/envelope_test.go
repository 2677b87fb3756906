package events

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/bizassist/bizassist/libs/ids"
)

func TestNewBuildsVersionedEnvelope(t *testing.T) {
	t.Parallel()
	before := time.Now().UTC().Truncate(time.Millisecond)
	e, err := New(context.Background(), "lead.written", "acc_1", map[string]string{"leadId": "lead_1"})
	require.NoError(t, err)

	require.True(t, ids.Valid("evt", e.ID), e.ID)
	require.Equal(t, "lead.written", e.Type)
	require.Equal(t, 1, e.Version)
	require.Equal(t, "acc_1", e.AccountID)
	require.Equal(t, time.UTC, e.OccurredAt.Location())
	require.Zero(t, e.OccurredAt.Nanosecond()%int(time.Millisecond), "millisecond precision")
	require.False(t, e.OccurredAt.Before(before))
	require.Empty(t, e.TraceParent, "no span in the context, nothing to propagate")

	var data struct{ LeadID string }
	require.NoError(t, e.Decode(&data))
	require.Equal(t, "lead_1", data.LeadID)

	raw, err := json.Marshal(e)
	require.NoError(t, err)
	var wire map[string]any
	require.NoError(t, json.Unmarshal(raw, &wire))
	require.ElementsMatch(t, []string{"id", "type", "version", "occurredAt", "accountId", "data"}, keys(wire))
}

func TestNewRejectsBadTypeAndData(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"", "Lead.Written", "lead written", "lead:written", ".lead", "lead."} {
		_, err := New(context.Background(), typ, "acc_1", nil)
		require.Error(t, err, typ)
	}
	_, err := New(context.Background(), "lead.written", "acc_1", func() {})
	require.Error(t, err, "data that cannot be encoded")
}

func TestEnvelopeContextWithoutTraceIsUnchanged(t *testing.T) {
	t.Parallel()
	ctx := Envelope{}.Context(context.Background())
	require.False(t, trace.SpanContextFromContext(ctx).IsValid())
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestParseEnvelopeRejectsWhatCanNeverSucceed(t *testing.T) {
	t.Parallel()
	good := newEvent(t, "lead.written")
	raw, err := json.Marshal(good)
	require.NoError(t, err)

	got, err := parseEnvelope(string(raw), "lead.written")
	require.NoError(t, err)
	require.Equal(t, good.ID, got.ID)
	for name, in := range map[string]struct{ raw, typ string }{
		"not json":     {"{", "lead.written"},
		"empty":        {"", "lead.written"},
		"no id":        {`{"type":"lead.written"}`, "lead.written"},
		"wrong stream": {string(raw), "usage.recorded"},
	} {
		_, err := parseEnvelope(in.raw, in.typ)
		require.Error(t, err, name)
	}
}
