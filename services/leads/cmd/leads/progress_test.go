package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTheProgressBarShowsRateAndTimeLeft(t *testing.T) {
	t.Parallel()
	p := &progressBar{size: 1000, read: func() int64 { return 250 }}
	require.Equal(t, "catalog import [=======>                      ]  25%  50,000 rows  5,000 rows/s  30s left",
		p.line(50_000, 10*time.Second))
	p.read = func() int64 { return 1000 }
	require.Contains(t, p.line(200_000, 40*time.Second), "[==============================] 100%  200,000 rows  5,000 rows/s  0s left")
	require.Equal(t, "catalog import: 1,234,567 rows  123,456 rows/s", (&progressBar{}).line(1_234_567, 10*time.Second))
}

// Outside a terminal the bar writes a line at most every logEvery, and always the last one.
func TestTheProgressBarLogsSparselyOutsideATerminal(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	p := &progressBar{w: &out, size: 100, read: func() int64 { return 50 }, start: now, now: func() time.Time { return now }}
	for range 5 {
		now = now.Add(time.Second)
		p.update(10, false)
	}
	require.Equal(t, 1, bytes.Count(out.Bytes(), []byte("\n")), "the first update, then none within logEvery")
	p.update(20, true)
	require.Equal(t, 2, bytes.Count(out.Bytes(), []byte("\n")))
	p.update(20, true)
	require.Equal(t, 2, bytes.Count(out.Bytes(), []byte("\n")), "the end is not written twice")
}
