package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// countingReader counts the bytes read from a file, for the import's progress.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// progressBar draws an import's progress: the share of the file read, rows, rows per second and
// the time left at that rate. On a terminal it redraws one line; elsewhere (a log, make) it
// writes a line at most every logEvery.
type progressBar struct {
	w        io.Writer
	size     int64 // the file's size; 0 when unknown (a pipe)
	read     func() int64
	start    time.Time
	now      func() time.Time
	terminal bool
	last     time.Time
	lastRows int // the rows of the last line written
}

const (
	barWidth = 30
	logEvery = 10 * time.Second
)

func newProgressBar(w *os.File, size int64, read func() int64) *progressBar {
	fi, err := w.Stat()
	terminal := err == nil && fi.Mode()&os.ModeCharDevice != 0
	return &progressBar{w: w, size: size, read: read, start: time.Now(), now: time.Now, terminal: terminal}
}

// update draws the bar after rows rows (final: the import ended).
func (p *progressBar) update(rows int, final bool) {
	now := p.now()
	if !p.terminal && ((!final && now.Sub(p.last) < logEvery) || (final && rows == p.lastRows && !p.last.IsZero())) {
		return // not yet, or the last line said it already
	}
	p.last, p.lastRows = now, rows
	line := p.line(rows, now.Sub(p.start))
	switch {
	case p.terminal && final:
		fmt.Fprintf(p.w, "\r%s\n", line)
	case p.terminal:
		fmt.Fprintf(p.w, "\r%s", line)
	default:
		fmt.Fprintln(p.w, line)
	}
}

// line is "[=======>      ]  45%  450,000 rows  9,120 rows/s  1m0s left".
func (p *progressBar) line(rows int, elapsed time.Duration) string {
	rate := 0.0
	if elapsed > 0 {
		rate = float64(rows) / elapsed.Seconds()
	}
	if p.size <= 0 {
		return fmt.Sprintf("catalog import: %s rows  %s rows/s", thousands(int64(rows)), thousands(int64(rate)))
	}
	done := min(float64(p.read())/float64(p.size), 1)
	filled := int(done * barWidth)
	bar := strings.Repeat("=", filled)
	if filled < barWidth {
		bar += ">" + strings.Repeat(" ", barWidth-filled-1)
	}
	left := "-"
	if done > 0 && elapsed > 0 {
		left = (time.Duration(float64(elapsed)/done) - elapsed).Round(time.Second).String()
	}
	return fmt.Sprintf("catalog import [%s] %3.0f%%  %s rows  %s rows/s  %s left", bar, done*100, thousands(int64(rows)), thousands(int64(rate)), left)
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
