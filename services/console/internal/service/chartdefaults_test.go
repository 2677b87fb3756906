package service_test

import (
	"testing"

	"github.com/bizassist/bizassist/libs/svc/svctest"
	"github.com/bizassist/bizassist/services/console/internal/service"
)

// The chart sets what the code defaults to, but for what a deployment chooses on purpose.
func TestChartDefaultsAgreeWithTheCode(t *testing.T) {
	t.Parallel()
	svctest.ChartDefaultsAgree(t, &service.Config{}, "console", map[string]string{})
}
