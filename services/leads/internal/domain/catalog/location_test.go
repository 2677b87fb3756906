package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/geo"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

func TestParseLocationAcceptsTheSpecShapes(t *testing.T) {
	t.Parallel()
	cases := map[string]catalog.Location{
		"Austin, TX":        {City: "Austin", State: "TX"},
		"  austin ,  texas": {City: "austin", State: "TX"},
		"Austin":            {City: "Austin"},
		"Texas":             {State: "TX"},
		"tx":                {State: "TX"},
		"New York":          {State: "NY"},
		"New  York, NY":     {City: "New York", State: "NY"},
		"78701":             {ZIP: "78701"},
		"78701-1234":        {ZIP: "78701"},
		"St. Louis, MO":     {City: "St. Louis", State: "MO"},
		"Winston-Salem, NC": {City: "Winston-Salem", State: "NC"},
		"":                  {},
	}
	for in, want := range cases {
		got, err := catalog.ParseLocation(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestParseLocationRejectsWhatIsNoPlace(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"Austin, ZZ", "ZZ", "123", "7870", "Austin, TX, USA", "@home", "Austin; DROP TABLE", ", TX"} {
		_, err := catalog.ParseLocation(in)
		require.ErrorIs(t, err, geo.ErrBadLocation, in)
	}
}

func TestMatchVerticals(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"plumbing"}, catalog.MatchVerticals("Plumbers"))
	require.Equal(t, []string{"dentist"}, catalog.MatchVerticals("dental clinics"))
	require.Equal(t, []string{"law_firm"}, catalog.MatchVerticals("law firm"))
	require.Equal(t, []string{"law_firm"}, catalog.MatchVerticals("law-firm"))
	require.ElementsMatch(t, []string{"hvac", "plumbing"}, catalog.MatchVerticals("plumbing & HVAC"))
	require.Empty(t, catalog.MatchVerticals("sushi"))
	require.Empty(t, catalog.MatchVerticals("vetted"), "only whole words match")
}

func TestCitySpellings(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"austin"}, catalog.CitySpellings("Austin"))
	require.Equal(t, []string{"saint louis", "st. louis", "st louis"}, catalog.CitySpellings("Saint Louis"))
	require.Equal(t, []string{"fort worth", "ft. worth", "ft worth"}, catalog.CitySpellings("Fort Worth"))
}
