package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"
)

// Resident memory per service process (issue 31): each service's VmRSS (/proc/<pid>/status),
// idle before the first scenario and at its highest while a webhook scenario runs (sampled every
// rssEvery). Aims: under 64 MiB idle and 256 MiB under load per process.
const (
	rssEvery     = 100 * time.Millisecond
	rssAimIdle   = 64 << 20
	rssAimLoaded = 256 << 20
)

// RSSSample is each service process's resident memory in bytes, by its pid file's name.
type RSSSample map[string]int64

// RSS reads each service process's resident memory (the ingress, PostgreSQL and Redis are not
// the services': left out).
func (m *CPUMeter) RSS() (RSSSample, error) {
	roots, err := m.stackRoots()
	if err != nil {
		return nil, err
	}
	s := RSSSample{}
	for name, pid := range roots {
		if name == groupIngress {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(m.procDir, strconv.Itoa(pid), "status"))
		if err != nil {
			continue // restarting
		}
		if kb, ok := statusKB(raw, "VmRSS:"); ok {
			s[name] = kb << 10
		}
	}
	return s, nil
}

// statusKB reads a "Name:   1234 kB" line of proc(5)'s status file.
func statusKB(raw []byte, field string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(field)) {
			continue
		}
		f := bytes.Fields(line[len(field):])
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(string(f[0]), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// PeakRSS samples every service's resident memory until the returned function is called, which
// returns each one's highest sample.
func (m *CPUMeter) PeakRSS() (stop func() RSSSample) {
	peak := RSSSample{}
	var mu sync.Mutex
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := func() {
		s, err := m.RSS()
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for k, v := range s {
			peak[k] = max(peak[k], v)
		}
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(rssEvery)
		defer t.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() RSSSample {
		close(done)
		<-finished
		sample()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// rssColumn is one column of the memory table: idle, or the peak during a scenario.
type rssColumn struct {
	title string
	rss   RSSSample
	aim   int64
}

// reportRSS prints each service's resident memory in MiB, one column per sample, marking the
// figures over their aim with "!".
func reportRSS(w io.Writer, cols []rssColumn) error {
	if len(cols) == 0 {
		return nil
	}
	var names []string
	for _, c := range cols {
		for n := range c.rss {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "resident memory per service process, MiB (aims: under %d idle, under %d under load; ! over the aim)\n", rssAimIdle>>20, rssAimLoaded>>20)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "service\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c.title)
	}
	fmt.Fprintln(tw)
	for _, n := range names {
		fmt.Fprintf(tw, "%s\t", n)
		for _, c := range cols {
			v, ok := c.rss[n]
			switch {
			case !ok:
				fmt.Fprint(tw, "-\t")
			case v > c.aim:
				fmt.Fprintf(tw, "%.1f !\t", float64(v)/(1<<20))
			default:
				fmt.Fprintf(tw, "%.1f\t", float64(v)/(1<<20))
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
