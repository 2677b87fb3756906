// Command catalog-gen writes a realistic, deterministic business catalog for the leads service:
// real US cities with their ZIP and area codes, many verticals, owner names, phone numbers
// libphonenumber accepts, websites for some businesses and not others. The same -seed and -asof
// give the same file.
//
//	catalog-gen -n 20000 -seed 42 -o demo.ndjson
//	catalog-gen -n 1000000 -seed 7 -format csv -o bench.csv
package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "catalog-gen:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("catalog-gen", flag.ContinueOnError)
	n := fs.Int("n", 20000, "number of businesses")
	seed := fs.Uint64("seed", 42, "random seed")
	format := fs.String("format", "ndjson", "ndjson or csv")
	out := fs.String("o", "-", "output file, - for stdout")
	asOf := fs.String("asof", time.Now().UTC().Format(time.DateOnly), "listing dates end on this day (YYYY-MM-DD)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	day, err := time.Parse(time.DateOnly, *asOf)
	if err != nil {
		return fmt.Errorf("-asof: %w", err)
	}
	if *n < 0 {
		return fmt.Errorf("-n must not be negative")
	}
	w := stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := write(bw, *format, NewGenerator(*seed, day), *n); err != nil {
		return err
	}
	return bw.Flush()
}

var csvHeader = []string{"id", "name", "owner", "email", "phone", "website", "vertical", "categories", "street",
	"city", "state", "zip", "lat", "lng", "source", "gapScore", "listedAt"}

func write(w io.Writer, format string, g *Generator, n int) error {
	switch format {
	case "ndjson":
		enc := json.NewEncoder(w)
		for i := range n {
			if err := enc.Encode(g.Next(i)); err != nil {
				return err
			}
		}
		return nil
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(csvHeader); err != nil {
			return err
		}
		for i := range n {
			b := g.Next(i)
			if err := cw.Write([]string{b.ID, b.Name, b.Owner, b.Email, b.Phone, b.Website, b.Vertical,
				strings.Join(b.Categories, ";"), b.Street, b.City, b.State, b.ZIP,
				strconv.FormatFloat(b.Lat, 'f', -1, 64), strconv.FormatFloat(b.Lng, 'f', -1, 64), b.Source,
				strconv.Itoa(b.GapScore), b.ListedAt.Format(time.RFC3339)}); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	default:
		return fmt.Errorf("-format %q: want ndjson or csv", format)
	}
}
