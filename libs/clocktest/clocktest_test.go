package clocktest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/clocktest"
)

func TestAdvanceMovesNow(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	c := clocktest.New(at)
	require.Equal(t, at, c.Now())
	c.Advance(90 * time.Minute)
	require.Equal(t, at.Add(90*time.Minute), c.Now())
}
