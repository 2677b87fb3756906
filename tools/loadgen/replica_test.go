package main

import (
	"bufio"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A counter is summed over its series of one type, whatever its other labels, and no other
// metric's series count.
func TestSumSamplesAddsOneTypesSeries(t *testing.T) {
	page := `# HELP bizassist_events_consumed_total Messages a consumer group handled.
# TYPE bizassist_events_consumed_total counter
bizassist_events_consumed_total{group="leads",result="ok",type="inbound.new_lead"} 120
bizassist_events_consumed_total{group="leads",result="duplicate",type="inbound.new_lead"} 3
bizassist_events_consumed_total{group="leads",result="ok",type="account.revoked"} 7
bizassist_events_consumed_total_extra{type="inbound.new_lead"} 1000
bizassist_events_published_total{type="inbound.new_lead"} 50
`
	n, err := sumSamples(bufio.NewScanner(strings.NewReader(page)), "bizassist_events_consumed_total", `type="inbound.new_lead"`)
	require.NoError(t, err)
	require.InDelta(t, 123.0, n, 1e-9)

	_, err = sumSamples(bufio.NewScanner(strings.NewReader(`m{type="a"} x`)), "m", `type="a"`)
	require.Error(t, err, "a sample that is not a number")
}
