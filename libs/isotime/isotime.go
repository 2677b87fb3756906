// Package isotime is the one way bizassist writes a time in responses and event payloads:
// ISO 8601 in UTC with milliseconds, e.g. 2026-11-21T20:45:00.000Z.
package isotime

import "time"

// Layout is the time.Format layout of a bizassist timestamp.
const Layout = "2006-01-02T15:04:05.000Z"

// Format writes t in UTC with milliseconds.
func Format(t time.Time) string { return t.UTC().Format(Layout) }
