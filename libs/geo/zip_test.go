package geo_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/geo"
)

// The ZIP codes are held in a sorted slice: lookups, the repeated-code rule and the suggestions
// for an unknown code must be what they were with a map.
func TestZIPCodesAreFoundAndSuggestedByNumber(t *testing.T) {
	t.Parallel()
	g := geo.NewGazetteer([]geo.ZIPCode{ // out of order, and 73301 twice
		{Code: "78705", State: "TX", City: "Austin", Lat: 30.29, Lng: -97.74},
		{Code: "73301", State: "TX", City: "Old Name", Lat: 30.26, Lng: -97.71},
		{Code: "78701", State: "TX", City: "Austin", Lat: 30.27, Lng: -97.74},
		{Code: "00501", State: "NY", City: "Holtsville", Lat: 40.82, Lng: -73.05},
		{Code: "78703", State: "TX", City: "Austin", Lat: 30.29, Lng: -97.77},
		{Code: "73301", State: "TX", City: "Austin", Lat: 30.26, Lng: -97.71},
		{Code: "99950", State: "AK", City: "Ketchikan", Lat: 55.54, Lng: -131.43},
	}, nil)
	z, ok := g.ZIP("73301")
	require.True(t, ok)
	require.Equal(t, "Austin", z.City, "the last row of a code is kept")
	for _, code := range []string{"00501", "78701", "78703", "78705", "99950"} {
		z, ok := g.ZIP(code)
		require.True(t, ok, code)
		require.Equal(t, code, z.Code)
	}
	for _, code := range []string{"00000", "78702", "99999", "7870"} {
		_, ok := g.ZIP(code)
		require.False(t, ok, code)
	}

	suggested := func(code string) []string {
		_, err := g.Resolve(code)
		var u *geo.UnknownPlaceError
		require.True(t, errors.As(err, &u), "%s: %v", code, err)
		return u.Suggestions
	}
	// 78702 is 1 from 78701 and 78703 (the lower code first on a tie), 3 from 78705.
	require.Equal(t, []string{"78701 (Austin, TX)", "78703 (Austin, TX)", "78705 (Austin, TX)"}, suggested("78702"))
	require.Equal(t, []string{"00501 (Holtsville, NY)", "73301 (Austin, TX)", "78701 (Austin, TX)"}, suggested("00000"))
	require.Equal(t, []string{"99950 (Ketchikan, AK)", "78705 (Austin, TX)", "78703 (Austin, TX)"}, suggested("99999"))
	require.Equal(t, []string{"78705 (Austin, TX)", "78703 (Austin, TX)", "78701 (Austin, TX)"}, suggested("80000"))
}
