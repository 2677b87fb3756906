package service_test

import (
	"testing"

	"github.com/bizassist/bizassist/libs/svc/svctest"
	"github.com/bizassist/bizassist/services/integrations/internal/service"
)

// The chart sets what the code defaults to, but for what a deployment chooses on purpose.
func TestChartDefaultsAgreeWithTheCode(t *testing.T) {
	t.Parallel()
	svctest.ChartDefaultsAgree(t, &service.Config{}, "integrations", map[string]string{
		"DATABASE_MAX_CONNS": "the delivery workers and the dispatcher hold connections: the pool stays above their share",
	})
}
