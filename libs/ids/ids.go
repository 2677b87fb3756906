// Package ids makes prefixed, time-sortable identifiers such as evt_01JD3X... (a ULID after the
// prefix), so an id says what it names and sorts by creation time.
package ids

import (
	"strings"

	"github.com/oklog/ulid/v2"
)

// New returns prefix + "_" + a new ULID.
func New(prefix string) string {
	return prefix + "_" + ulid.Make().String()
}

// Valid reports whether id has the given prefix followed by a well-formed ULID.
func Valid(prefix, id string) bool {
	rest, ok := strings.CutPrefix(id, prefix+"_")
	if !ok {
		return false
	}
	_, err := ulid.ParseStrict(rest)
	return err == nil
}
