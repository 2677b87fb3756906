package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// City is one populated place of GeoNames' cities1000 table.
type City struct {
	Name, State string
	Population  int
	Lat, Lng    float64
	// Part marks a section of a city (GeoNames' PPLX, and New York's boroughs): searched around
	// its point, and never preferred to a city of the same name.
	Part       bool
	Alternates []string
}

// cities1000 columns (GeoNames' readme for the cities files).
const (
	colName, colAlternates, colLat, colLng, colFeatureCode, colCountry, colAdmin1, colPopulation = 1, 3, 4, 5, 7, 8, 10, 14
	columns                                                                                      = 19
)

// gone are the feature codes of places that are no longer there (abandoned, historical, destroyed).
var gone = map[string]bool{"PPLQ": true, "PPLH": true, "PPLW": true}

// boroughs are New York City's, which GeoNames records as county seats: parts of the city.
var boroughs = map[string]bool{"Queens": true, "Brooklyn": true, "Manhattan": true, "The Bronx": true, "Staten Island": true}

var (
	placeName     = regexp.MustCompile(`^\p{L}[\p{L} .'‘’ʻ-]{0,79}$`)
	alternateName = regexp.MustCompile(`^[A-Z][A-Za-z .'-]{1,59}$`)
	statePart     = regexp.MustCompile(`, (?:D\.C\.|[A-Z]{2})$`)
	officialOf    = regexp.MustCompile(`^(?:City|Town|Village|Borough|Township) of `)
)

// ParseCities reads cities1000.txt and keeps the US places of the 50 states and DC that still exist.
func ParseCities(r io.Reader) ([]City, error) {
	var out []City
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24) // a line's alternate names run to tens of kilobytes
	for n := 1; sc.Scan(); n++ {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != columns {
			return nil, fmt.Errorf("line %d: want %d columns, have %d", n, columns, len(f))
		}
		if f[colCountry] != "US" || !states[f[colAdmin1]] || gone[f[colFeatureCode]] {
			continue
		}
		name := statePart.ReplaceAllString(f[colName], "") // "Washington, D.C."
		if !placeName.MatchString(name) {
			continue // "Buffalo (historical)", "Socorro Mission Number 1 Colonia"
		}
		lat, err1 := strconv.ParseFloat(f[colLat], 64)
		lng, err2 := strconv.ParseFloat(f[colLng], 64)
		pop, err3 := strconv.Atoi(f[colPopulation])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("line %d: bad coordinate or population", n)
		}
		out = append(out, City{
			Name: name, State: f[colAdmin1], Population: pop, Lat: lat, Lng: lng,
			Part:       f[colFeatureCode] == "PPLX" || (f[colAdmin1] == "NY" && boroughs[name]),
			Alternates: alternates(name, strings.Split(f[colAlternates], ",")),
		})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.State != b.State {
			return a.State < b.State
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Population > b.Population
	})
	return out, nil
}

// alternates keeps the other names of a place that are its name written another way in English
// ("Lexington" for Lexington-Fayette, "Boise City", "Nashville-Davidson"): same first word, Latin
// letters, not a code ("LAX"). Transliterations and former names are left out: they are not what
// people write, and "Alvin" or "Middletown" would take another town's name.
func alternates(name string, alts []string) []string {
	own := simple(name)
	first, _, _ := strings.Cut(own, " ")
	seen := map[string]bool{own: true}
	var out []string
	for _, a := range alts {
		a = officialOf.ReplaceAllString(a, "")
		s := simple(a)
		w, _, _ := strings.Cut(s, " ")
		if !alternateName.MatchString(a) || a == strings.ToUpper(a) || w != first || seen[s] || len(strings.Fields(s)) > 4 {
			continue
		}
		seen[s] = true
		out = append(out, a)
	}
	return out
}

// simple is a name in lower case with anything but letters a space, for comparing names.
func simple(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r < 'a' || r > 'z' }), " ")
}

// WriteCities writes the place file: "Name<TAB>ST<TAB>population<TAB>lat<TAB>lng<TAB>part<TAB>alternates",
// part "1" for a section of a city, alternates separated by ";".
func WriteCities(w io.Writer, cities []City) error {
	bw := bufio.NewWriter(w)
	for _, c := range cities {
		part := ""
		if c.Part {
			part = "1"
		}
		fmt.Fprintf(bw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", c.Name, c.State, c.Population,
			strconv.FormatFloat(c.Lat, 'f', -1, 64), strconv.FormatFloat(c.Lng, 'f', -1, 64), part, strings.Join(c.Alternates, ";"))
	}
	return bw.Flush()
}

func convertPlaces(in, out string, log io.Writer) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	cities, err := ParseCities(f)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := WriteCities(&buf, cities); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "gazetteer: %d US places kept, %d bytes\n", len(cities), buf.Len())
	return nil
}
