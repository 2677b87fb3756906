// Package gazetteerdata loads the US place data embedded with the service (us-zips.tsv, made by
// tools/gazetteer from the npm package zipcodes; see ATTRIBUTION.md) into a catalog.Gazetteer.
package gazetteerdata

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

//go:embed us-zips.tsv
var data string

// Parse reads place data: one ZIP code a line, "ZIP<TAB>ST<TAB>City<TAB>lat<TAB>lng". The codes
// and names are substrings of src, so what the gazetteer keeps shares the embedded data's memory.
func Parse(src string) ([]catalog.ZIPCode, error) {
	zips := make([]catalog.ZIPCode, 0, 42000)
	for n := 1; src != ""; n++ {
		var line string
		line, src, _ = strings.Cut(src, "\n")
		f := strings.Split(strings.TrimSuffix(line, "\r"), "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("line %d: want 5 fields, have %d", n, len(f))
		}
		lat, err1 := strconv.ParseFloat(f[3], 64)
		lng, err2 := strconv.ParseFloat(f[4], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d: bad coordinate", n)
		}
		zips = append(zips, catalog.ZIPCode{Code: f[0], State: f[1], City: f[2], Lat: lat, Lng: lng})
	}
	return zips, nil
}

var (
	once sync.Once
	gaz  *catalog.Gazetteer
	err  error
)

// Load returns the gazetteer of the embedded data, built once per process (about 40,000 ZIP codes).
func Load() (*catalog.Gazetteer, error) {
	once.Do(func() {
		var zips []catalog.ZIPCode
		if zips, err = Parse(data); err == nil {
			gaz = catalog.NewGazetteer(zips)
		}
	})
	return gaz, err
}
