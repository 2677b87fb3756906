package geo_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/geo"
)

func TestStateCode(t *testing.T) {
	t.Parallel()
	code, ok := geo.StateCode("district of columbia")
	require.True(t, ok)
	require.Equal(t, "DC", code)
	_, ok = geo.StateCode("Ontario")
	require.False(t, ok)
	name, ok := geo.StateName("TX")
	require.True(t, ok)
	require.Equal(t, "Texas", name)
}
