package delivery

import "github.com/prometheus/client_golang/prometheus/testutil"

// StuckGauge is bizassist_webhook_deliveries_stuck's value, for tests.
func StuckGauge() float64 { return testutil.ToFloat64(stuckJobs) }
