package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The failover check holds the limiter to its policy: the run, 40 of 40 through after a
// master was killed, fails it, and so does a partial second budget; the burst alone passes.
func TestTheFailoverCheckRefusesMoreThanThePolicysBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		f        Failover
		held     bool
		failsRun bool
	}{
		{"every probe through (fail open)", Failover{RateLimited: 0, Budget: 31}, false, true},
		{"a second budget on one replica", Failover{RateLimited: 5, Budget: 31}, false, true},
		{"the burst and a refill", Failover{RateLimited: 9, Budget: 31}, true, false},
		{"a source that spent some before", Failover{RateLimited: 25, Budget: 31}, true, false},
		{"still on the in-process fallback", Failover{RateLimited: 25, Budget: 31, FallbackActive: true}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.held, tc.f.LimitHeld())
			f := tc.f
			err := checkWebhooks([]WebhookResult{{Name: "redis-master-kill", Failover: &f}})
			require.Equal(t, tc.failsRun, err != nil, "%v", err)
		})
	}
}
