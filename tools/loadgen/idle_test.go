package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTheIdleReportIsPerCoreAndPerSecond(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, reportIdle(&out, IdleResult{
		Duration: 60 * time.Second,
		CPU:      CPUSample{"leads": 600 * time.Millisecond, groupPostgres: 3 * time.Second, groupStackTotal: 3600 * time.Millisecond},
		Counts: counters{"pg commits": 720, "pg scans public.outbox": 600, "pg scans public.leads": 60,
			"pg rows public.leads": 5, "redis xreadgroup": 120, "redis ping": 30},
	}))
	require.Regexp(t, `leads\s+postgres\s+redis\s+stack`, out.String())
	require.Regexp(t, `1\.00\s+5\.00\s+0\.00\s+6\.00`, out.String(), "a share of one core: 0.6 s of 60 s is 1%")
	require.Contains(t, out.String(), "pg commits 12.00, pg table scans 11.00 (public.outbox 10.00, public.leads 1.00)")
	require.Contains(t, out.String(), "redis commands 2.50 (xreadgroup 2.00, ping 0.50)")
}
