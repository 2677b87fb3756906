package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// result is what one fault showed.
type result struct {
	fault    string
	acked    int            // inbound events the stack acknowledged while the fault ran
	lost     int            // acknowledged events not delivered (or not in the sheet) within the bound
	errors   map[string]int // failed requests by status ("conn" for transport errors)
	recovery time.Duration  // from the dependency's return to the last request failure or first-time delivery; <0: not applicable
	problems []string       // promises broken
	// The alert column: the alerts the fault must raise, the episodes that began while it lasted
	// (until end, when its alerts had been raised), and what the row says instead (dashboards).
	want    []string
	raised  []*episode
	end     time.Time
	summary string
}

func (r *result) fail(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

func (r result) verdict() string {
	if len(r.problems) == 0 {
		return "ok"
	}
	return "FAILED: " + strings.Join(r.problems, "; ")
}

// printTable writes the suite's table, then each failed fault's problems.
func printTable(w io.Writer, rs []result, m *monitor) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "fault\tacknowledged\tlost\terrors by status\trecovery\talerts\tresult")
	for _, r := range rs {
		rec := "-"
		if r.recovery >= 0 {
			rec = r.recovery.Round(100 * time.Millisecond).String()
		}
		ok := "ok"
		if len(r.problems) > 0 {
			ok = "FAILED"
		}
		alerts := r.summary
		if alerts == "" {
			alerts = r.alertText(m)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\n", r.fault, r.acked, r.lost, errorsText(r.errors), rec, alerts, ok)
	}
	_ = tw.Flush()
	for _, r := range rs {
		for _, p := range r.problems {
			fmt.Fprintf(w, "  %s: %s\n", r.fault, p)
		}
	}
}
