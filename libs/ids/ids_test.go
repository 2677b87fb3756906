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

func TestDerivedIsStableValidAndSeparatesParts(t *testing.T) {
	t.Parallel()
	a := ids.Derived("lead", "acc_1", "jane@example.com")
	require.Equal(t, a, ids.Derived("lead", "acc_1", "jane@example.com"))
	require.True(t, ids.Valid("lead", a))
	require.NotEqual(t, a, ids.Derived("lead", "acc_2", "jane@example.com"))
	require.NotEqual(t, ids.Derived("lead", "ab", "c"), ids.Derived("lead", "a", "bc"))
	// Pinned: leads' migration 006 spells the same ids in SQL for rows written before.
	require.Equal(t, "lead_0JXSENWM9ZPQEXT087KVZE51HM", ids.Derived("lead", "acc_1", "jane@example.com"))
}
