package httpx

import (
	"time"

	"github.com/bizassist/bizassist/libs/isotime"
)

// Timestamp formats t for a response (isotime: ISO 8601, UTC, milliseconds).
func Timestamp(t time.Time) string { return isotime.Format(t) }

// Time marshals as a response timestamp; the zero time marshals as null.
type Time time.Time

func (t Time) MarshalJSON() ([]byte, error) {
	if time.Time(t).IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + isotime.Format(time.Time(t)) + `"`), nil
}
