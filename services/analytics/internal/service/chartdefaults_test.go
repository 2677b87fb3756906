package service_test

import (
	"testing"

	"github.com/bizassist/bizassist/libs/svc/svctest"
	"github.com/bizassist/bizassist/services/analytics/internal/service"
)

// The chart sets what the code defaults to, but for what a deployment chooses on purpose.
func TestChartDefaultsAgreeWithTheCode(t *testing.T) {
	t.Parallel()
	svctest.ChartDefaultsAgree(t, &service.Config{}, "analytics", map[string]string{
		"EVENTS_CONSUMER_LINGER": "its consumer feeds projections nobody waits on by the millisecond: batches gathered over 50 ms under load",
	})
}
