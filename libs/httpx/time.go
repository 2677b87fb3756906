package httpx

import "time"

// TimeLayout is how every response writes a time: ISO 8601, UTC, milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Timestamp formats t for a response.
func Timestamp(t time.Time) string { return t.UTC().Format(TimeLayout) }

// Time marshals as a response timestamp; the zero time marshals as null.
type Time time.Time

func (t Time) MarshalJSON() ([]byte, error) {
	if time.Time(t).IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + Timestamp(time.Time(t)) + `"`), nil
}
