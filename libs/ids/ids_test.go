package ids_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/ids"
)

func TestNewIsPrefixedUniqueAndValid(t *testing.T) {
	t.Parallel()
	a, b := ids.New("evt"), ids.New("evt")
	require.NotEqual(t, a, b)
	require.True(t, ids.Valid("evt", a))
	require.False(t, ids.Valid("hook", a))
	require.False(t, ids.Valid("evt", "evt_not-a-ulid"))
	require.Len(t, a, len("evt_")+26)
}
