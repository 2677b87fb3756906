package geodata_test

import (
	"bufio"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/geo"
	"github.com/bizassist/bizassist/libs/geo/geodata"
)

// TestTheNamesRefusedBefore are issue 39's: places with no ZIP code of their own name.
func TestTheNamesRefusedBefore(t *testing.T) {
	g, _ := load(t)
	for in, want := range map[string]string{
		"Queens, NY": "Queens, NY", "The Bronx, NY": "Bronx, NY", "Lakewood, CO": "Lakewood, CO",
		"Miramar, FL": "Miramar, FL", "West Valley City, UT": "West Valley City, UT", "Amherst, NY": "Amherst, NY",
		"Lexington-Fayette, KY": "Lexington-Fayette, KY", "Paradise, NV": "Paradise, NV",
		"Spring Valley, NV": "Spring Valley, NV", "Sunrise Manor, NV": "Sunrise Manor, NV",
		"East Los Angeles, CA": "East Los Angeles, CA", "Hollywood, CA": "Hollywood, CA", "Harlem, NY": "Harlem, NY",
		"Koreatown, CA": "Koreatown, CA", "Queens": "Queens, NY", "Pflugerville": "Pflugerville, TX",
		"Lexington, KY": "Lexington, KY", "Nashville-Davidson": "Nashville, TN", "Boise City, ID": "Boise, ID",
	} {
		r, err := g.Resolve(in)
		require.NoError(t, err, in)
		require.Equal(t, want, r.Name, in)
		require.NotNil(t, r.Point, in)
	}
}

// A place the postal data does not name is searched around its point; a postal place by its name.
func TestAPlaceWithoutAPostalNameIsSearchedAroundIt(t *testing.T) {
	g, _ := load(t)
	for in, miles := range map[string]float64{"Queens, NY": 6, "Harlem, NY": 1.5, "Paradise, NV": 4, "Austin, TX": 0, "Brooklyn, NY": 0} {
		r, err := g.Resolve(in)
		require.NoError(t, err, in)
		require.Equal(t, miles, r.NearMiles, in)
	}
}

func TestAnAmbiguousNameIsTheLargestAndOffersTheOthers(t *testing.T) {
	g, _ := load(t)
	r, err := g.Resolve("Springfield")
	require.NoError(t, err)
	require.Equal(t, "Springfield, MO", r.Name, "the largest Springfield (GeoNames: 166,810 people)")
	require.Equal(t, []string{"Springfield, MA", "Springfield, IL", "Springfield, OR", "Springfield, OH", "Springfield, VA"}, r.Alternatives)
	r, err = g.Resolve("Springfield, IL")
	require.NoError(t, err)
	require.Empty(t, r.Alternatives, "a name with its state is not ambiguous")
	r, err = g.Resolve("Harlem")
	require.NoError(t, err)
	require.Equal(t, "Harlem, GA", r.Name, "a town before a section of a city of the same name")
	require.Contains(t, r.Alternatives, "Harlem, NY")
}

// TestPlacesOfAnotherSource resolves the 3,194 airport towns of the FAA's list (testdata/README.md)
// in the forms people write them: "City, ST", "City ST", "City, State". 96.7% resolve; the rest
// (106 names) are Alaskan bush villages and camps of a few dozen people that neither data set
// holds, the list's own misspellings ("Canandaiga", "Prestonburg") and regions ("Everglades"),
// each refused with suggestions. The floor keeps that figure from slipping.
func TestPlacesOfAnotherSource(t *testing.T) {
	g, _ := load(t)
	f, err := os.Open("testdata/airport-cities.tsv")
	require.NoError(t, err)
	defer f.Close()
	var total, resolved int
	var refused []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		city, state, _ := strings.Cut(sc.Text(), "\t")
		name, ok := geo.StateName(state)
		require.True(t, ok, state)
		for _, in := range []string{city + ", " + state, city + " " + state, city + ", " + name} {
			total++
			r, err := g.Resolve(in)
			var u *geo.UnknownPlaceError
			switch {
			case err == nil:
				require.True(t, strings.HasSuffix(r.Name, ", "+state), "%q resolved to %q", in, r.Name)
				resolved++
			case errors.As(err, &u):
				require.NotEmpty(t, u.Suggestions, "%q is refused without suggestions", in)
				refused = append(refused, in)
			default:
				t.Fatalf("%q: %v", in, err)
			}
		}
	}
	require.NoError(t, sc.Err())
	require.GreaterOrEqual(t, total, 9000)
	share := float64(resolved) / float64(total)
	t.Logf("%d of %d place strings resolved (%.2f%%); refused: %v", resolved, total, 100*share, refused)
	require.GreaterOrEqual(t, share, 0.965)
}

// maxLiveBytes bounds the memory the loaded gazetteer holds beyond the embedded files.
const maxLiveBytes = 24 << 20

func TestTheGazetteerFitsItsMemoryBound(t *testing.T) {
	zipSrc, placeSrc := geodata.Data()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	zips, err := geodata.ParseZIPs(zipSrc)
	require.NoError(t, err)
	towns, err := geodata.ParseTowns(placeSrc)
	require.NoError(t, err)
	g := geo.NewGazetteer(zips, towns)
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d places, %.1f MB live", g.Places(), float64(live)/(1<<20))
	require.Less(t, live, int64(maxLiveBytes))
	runtime.KeepAlive(g)
}
