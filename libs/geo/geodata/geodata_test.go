package geodata_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/bizassist/bizassist/libs/geo"
	"github.com/bizassist/bizassist/libs/geo/geodata"
)

func load(t testing.TB) (*geo.Gazetteer, []geo.ZIPCode) {
	t.Helper()
	g, err := geodata.Load()
	if err != nil {
		t.Fatal(err)
	}
	src, _ := geodata.Data()
	zips, err := geodata.ParseZIPs(src)
	if err != nil {
		t.Fatal(err)
	}
	return g, zips
}

func TestEmbeddedData(t *testing.T) {
	g, zips := load(t)
	if len(zips) < 40000 || g.Places() < 25000 {
		t.Fatalf("%d ZIP codes, %d places: the embedded data is not the whole US table", len(zips), g.Places())
	}
}

// TestTheIssuesForms is issue 26 finding 4, form by form.
func TestTheIssuesForms(t *testing.T) {
	g, _ := load(t)
	for in, want := range map[string]string{
		"Austin TX":                    "Austin, TX",
		"austin tx":                    "Austin, TX",
		"Austin, TX":                   "Austin, TX",
		"Austin, Texas":                "Austin, TX",
		"Austin, TX 78701":             "78701 (Austin, TX)",
		"Austin, TX, USA":              "Austin, TX",
		"Austin Texas USA":             "Austin, TX",
		"Austin, Texas, United States": "Austin, TX",
		"78701":                        "78701 (Austin, TX)",
		"78701-1234":                   "78701 (Austin, TX)",
		"New York City":                "New York, NY",
		"NYC":                          "New York, NY",
		"New York City, NY":            "New York, NY",
		"Saint Louis, MO":              "Saint Louis, MO",
		"St. Louis, MO":                "Saint Louis, MO",
		"st louis":                     "Saint Louis, MO",
		"Washington, D.C.":             "Washington, DC",
		"Washington DC":                "Washington, DC",
		"D.C.":                         "Washington, DC",
		"LA":                           "Los Angeles, CA",
		"la":                           "Los Angeles, CA",
		"Los Angeles":                  "Los Angeles, CA",
		"Springfield":                  "Springfield, MO",
		"Springfield, MA":              "Springfield, MA",
		"Ft. Worth, TX":                "Fort Worth, TX",
		"Fort Worth":                   "Fort Worth, TX",
		"Mt. Vernon, NY":               "Mount Vernon, NY",
		"Helena MT":                    "Helena, MT",
		"Salt Lake City Utah":          "Salt Lake City, UT",
		"SAN JOSÉ, CA":                 "San Jose, CA",
		"Cañon City, CO":               "Canon City, CO",
		"Texas":                        "Texas",
		"TX":                           "Texas",
		"Baton Rouge, LA":              "Baton Rouge, LA",
	} {
		r, err := g.Resolve(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if r.Name != want {
			t.Errorf("%q resolved to %q, want %q", in, r.Name, want)
		}
	}
}

func TestUnknownPlacesAreRefusedWithSuggestions(t *testing.T) {
	g, _ := load(t)
	// Atlantis, FL is a real town now that the data has populated places: "Atlantiss" is none.
	for _, in := range []string{"Atlantiss", "Atlantis, GA", "Narnia City", "Springfeild, IL", "Austin, ZZ", "Smallvile KS", "00000", "Narnia"} {
		_, err := g.Resolve(in)
		var u *geo.UnknownPlaceError
		if !errors.As(err, &u) {
			t.Errorf("%q: %v, want an unknown place", in, err)
			continue
		}
		if len(u.Suggestions) > 3 {
			t.Errorf("%q: %d suggestions", in, len(u.Suggestions))
		}
		if in != "Narnia" && len(u.Suggestions) == 0 {
			t.Errorf("%q: no suggestions", in)
		}
	}
	_, err := g.Resolve("Atlantis, GA")
	var u *geo.UnknownPlaceError
	errors.As(err, &u)
	if !strings.Contains(strings.Join(u.Suggestions, ";"), "Atlanta, GA") {
		t.Errorf("Atlantis, GA: suggestions %v, want Atlanta, GA among them", u.Suggestions)
	}
	_, err = g.Resolve("Springfeild, IL")
	errors.As(err, &u)
	if len(u.Suggestions) == 0 || u.Suggestions[0] != "Springfield, IL" {
		t.Errorf("Springfeild, IL: suggestions %v", u.Suggestions)
	}
}

// TestThousandsOfRealPlaces writes real places from the data in every form and resolves them all.
func TestThousandsOfRealPlaces(t *testing.T) {
	g, zips := load(t)
	rng := rand.New(rand.NewPCG(26, 4))
	states := map[string]string{"TX": "Texas", "CA": "California", "NY": "New York", "MO": "Missouri", "FL": "Florida",
		"PA": "Pennsylvania", "OH": "Ohio", "IL": "Illinois", "MI": "Michigan", "GA": "Georgia"}
	const n = 3000
	resolved := 0
	for i := 0; i < n; i++ {
		z := zips[rng.IntN(len(zips))]
		p, ok := g.Lookup(z.City, z.State)
		if !ok {
			t.Fatalf("%s, %s is in the data but not found", z.City, z.State)
		}
		want := p.Name()
		forms := map[string]string{
			z.City + " " + z.State:                           want,
			z.City + ", " + z.State:                          want,
			strings.ToUpper(z.City) + ", " + z.State:         want,
			strings.ToLower(z.City + " " + z.State):          want,
			z.City + ", " + z.State + " " + z.Code:           z.Code + " (" + z.City + ", " + z.State + ")",
			z.City + ", " + z.State + " " + z.Code + "-0001": z.Code + " (" + z.City + ", " + z.State + ")",
			z.City + ", " + z.State + ", USA":                want,
			z.Code:                                           z.Code + " (" + z.City + ", " + z.State + ")",
			z.Code + "-1234":                                 z.Code + " (" + z.City + ", " + z.State + ")",
			abbreviate(z.City) + ", " + z.State:              want,
		}
		if name, ok := states[z.State]; ok {
			forms[z.City+", "+name+", USA"] = want
		}
		for in, w := range forms {
			r, err := g.Resolve(in)
			if err != nil {
				t.Errorf("%q: %v", in, err)
				continue
			}
			if r.Name != w && !(strings.HasPrefix(w, z.Code) && strings.HasPrefix(r.Name, z.Code)) {
				t.Errorf("%q resolved to %q, want %q", in, r.Name, w)
				continue
			}
			if r.Point == nil {
				t.Errorf("%q: no point", in)
			}
			resolved++
		}
	}
	if resolved < 20000 {
		t.Fatalf("only %d place strings resolved", resolved)
	}
	t.Logf("%d real place strings resolved", resolved)
}

// abbreviate writes a place name the short way: Saint → St., Fort → Ft., Mount → Mt.
func abbreviate(city string) string {
	r := strings.NewReplacer("Saint ", "St. ", "Fort ", "Ft. ", "Mount ", "Mt. ")
	return r.Replace(city)
}

// TestMadeUpPlacesAreRefused makes names that are no place (real names with letters swapped in)
// and checks each is refused with at most three suggestions. Twenty: each refusal reads every
// name of its first letter for suggestions (13 ms, 0.3 s under -race).
func TestMadeUpPlacesAreRefused(t *testing.T) {
	g, _ := load(t)
	for i := 0; i < 20; i++ {
		in := fmt.Sprintf("Qx%czvb%c Hollow", 'a'+rune(i%26), 'a'+rune(i/26))
		_, err := g.Resolve(in + ", TX")
		var u *geo.UnknownPlaceError
		if !errors.As(err, &u) {
			t.Fatalf("%q: %v", in, err)
		}
		if len(u.Suggestions) > 3 {
			t.Fatalf("%q: %v", in, u.Suggestions)
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	g, _ := load(b)
	for b.Loop() {
		if _, err := g.Resolve("Saint Louis, MO"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConcurrentResolves: one gazetteer serves every request at once (run with -race).
func TestConcurrentResolves(t *testing.T) {
	g, _ := load(t)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, in := range []string{"Austin, TX", "SAN JOSÉ, CA", "Cañon City, CO", "St. Louis", "Atlantis", "Zürich"} {
				for i := 0; i < 10; i++ {
					_, _ = g.Resolve(in)
				}
			}
		}()
	}
	wg.Wait()
	r, err := g.Resolve("Cañon City, CO")
	if err != nil || r.Name != "Canon City, CO" {
		t.Fatalf("%v %v", r, err)
	}
}
