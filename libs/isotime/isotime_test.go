package isotime_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/isotime"
)

func TestFormatIsUTCWithMilliseconds(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 15, 4, 5, 123456789, time.FixedZone("CST", -6*3600))
	require.Equal(t, "2026-11-21T21:04:05.123Z", isotime.Format(at))
	parsed, err := time.Parse(time.RFC3339Nano, isotime.Format(at))
	require.NoError(t, err)
	require.True(t, parsed.Equal(at.Truncate(time.Millisecond)))
}

func TestTimeMarshalsTheOneFormat(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 15, 4, 5, 123456789, time.FixedZone("CST", -6*3600))
	raw, err := json.Marshal(struct {
		At    isotime.Time  `json:"at"`
		Zero  isotime.Time  `json:"zero"`
		Unset *isotime.Time `json:"unset,omitempty"`
	}{At: isotime.Of(at)})
	require.NoError(t, err)
	require.JSONEq(t, `{"at":"2026-11-21T21:04:05.123Z","zero":null}`, string(raw))
}

func TestTimeUnmarshalsEveryRFC3339Spelling(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 11, 21, 21, 4, 5, 123000000, time.UTC)
	for _, in := range []string{
		`"2026-11-21T21:04:05.123Z"`,       // the one format
		`"2026-11-21T21:04:05.123000000Z"`, // time.Time's own encoding (RFC 3339 with nanoseconds)
		`"2026-11-21T15:04:05.123-06:00"`,  // an offset
	} {
		var got isotime.Time
		require.NoError(t, json.Unmarshal([]byte(in), &got), in)
		require.True(t, got.Equal(want), "%s gave %s", in, got)
		require.Equal(t, time.UTC, got.Location(), in)
	}
	for _, in := range []string{`null`, `""`} {
		got := isotime.Of(want)
		require.NoError(t, json.Unmarshal([]byte(in), &got), in)
		require.True(t, got.IsZero(), in)
	}
	for _, in := range []string{`"yesterday"`, `1732222800`, `"2026-11-21"`} {
		var got isotime.Time
		require.Error(t, json.Unmarshal([]byte(in), &got), in)
	}
}

func TestOrFallsBackOnlyForTheZeroTime(t *testing.T) {
	t.Parallel()
	at, fallback := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	require.Equal(t, at, isotime.Of(at).Or(fallback))
	require.Equal(t, fallback, isotime.Time{}.Or(fallback))
}
