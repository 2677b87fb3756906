package isotime_test

import (
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
