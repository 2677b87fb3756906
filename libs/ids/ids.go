// Package ids makes prefixed, time-sortable identifiers such as evt_01JD3X... (a ULID after the
// prefix), so an id says what it names and sorts by creation time.
package ids

import (
	"crypto/sha256"
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

// Derived returns prefix + "_" + an id computed from parts: the first 128 bits of SHA-256 over
// the parts, spelled as a ULID. The same parts always give the same id, so two services can name
// one thing without asking each other; such an id does not sort by time.
func Derived(prefix string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0}) // parts cannot run into each other
	}
	var u ulid.ULID
	copy(u[:], h.Sum(nil))
	return prefix + "_" + u.String()
}
