package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResidentMemoryIsReadFromStatus(t *testing.T) {
	t.Parallel()
	raw := []byte("Name:\tleads\nVmPeak:\t 1300000 kB\nVmHWM:\t   70000 kB\nVmRSS:\t   51234 kB\nThreads:\t9\n")
	kb, ok := statusKB(raw, "VmRSS:")
	require.True(t, ok)
	require.EqualValues(t, 51234, kb)
	_, ok = statusKB(raw, "VmSwap:")
	require.False(t, ok)
}

func TestTheMemoryTableMarksFiguresOverTheirAim(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, reportRSS(&out, []rssColumn{
		{"idle", RSSSample{"leads": 40 << 20, "analytics": 70 << 20}, rssAimIdle},
		{"peak, webhook-e2e-300x5", RSSSample{"leads": 300 << 20}, rssAimLoaded},
	}))
	require.Contains(t, out.String(), "70.0 !")
	require.Contains(t, out.String(), "300.0 !")
	require.Contains(t, out.String(), "40.0")
	require.Regexp(t, `analytics\s+70.0 !\s+-`, out.String(), "no peak sample for analytics")
}
