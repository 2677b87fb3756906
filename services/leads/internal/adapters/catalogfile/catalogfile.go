// Package catalogfile reads catalog files: CSV with a header row, or NDJSON (one object a line).
// Both carry the fields documented in the service README.
package catalogfile

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

// record is the file schema; NDJSON uses these keys, CSV these header names.
type record struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Owner      string     `json:"owner"`
	Email      string     `json:"email"`
	Phone      string     `json:"phone"`
	Website    string     `json:"website"`
	Vertical   string     `json:"vertical"`
	Categories []string   `json:"categories"`
	Street     string     `json:"street"`
	City       string     `json:"city"`
	State      string     `json:"state"`
	ZIP        string     `json:"zip"`
	Lat        *float64   `json:"lat"`
	Lng        *float64   `json:"lng"`
	Source     string     `json:"source"`
	GapScore   *int       `json:"gapScore"`
	ListedAt   *time.Time `json:"listedAt"`
}

func (r record) input() catalog.BusinessInput {
	return catalog.BusinessInput{ID: r.ID, Name: r.Name, Owner: r.Owner, Email: r.Email, Phone: r.Phone,
		Website: r.Website, Vertical: r.Vertical, Categories: r.Categories, Street: r.Street, City: r.City,
		State: r.State, ZIP: r.ZIP, Lat: r.Lat, Lng: r.Lng, Source: r.Source, GapScore: r.GapScore, ListedAt: r.ListedAt}
}

// Open returns a row reader for r; format is "csv" or "ndjson".
func Open(r io.Reader, format string) (app.CatalogRows, error) {
	switch format {
	case "ndjson", "jsonl":
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		return &ndjsonRows{sc: sc}, nil
	case "csv":
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = -1
		cr.ReuseRecord = true
		header, err := cr.Read()
		if err != nil {
			return nil, fmt.Errorf("read CSV header: %w", err)
		}
		cols := map[string]int{}
		for i, h := range header {
			cols[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
		}
		for _, required := range []string{"id", "name", "vertical", "city", "state"} {
			if _, ok := cols[required]; !ok {
				return nil, fmt.Errorf("CSV header lacks column %q", required)
			}
		}
		return &csvRows{r: cr, cols: cols}, nil
	default:
		return nil, fmt.Errorf("unknown catalog format %q (csv or ndjson)", format)
	}
}

type ndjsonRows struct {
	sc   *bufio.Scanner
	line int
}

func (n *ndjsonRows) Next() (app.CatalogRow, error) {
	for n.sc.Scan() {
		n.line++
		text := strings.TrimSpace(n.sc.Text())
		if text == "" {
			continue
		}
		var rec record
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return app.CatalogRow{Line: n.line, Err: fmt.Errorf("not a valid record: %w", err)}, nil
		}
		return app.CatalogRow{Line: n.line, Input: rec.input()}, nil
	}
	if err := n.sc.Err(); err != nil {
		return app.CatalogRow{}, fmt.Errorf("line %d: %w", n.line+1, err)
	}
	return app.CatalogRow{}, io.EOF
}

type csvRows struct {
	r    *csv.Reader
	cols map[string]int
}

func (c *csvRows) Next() (app.CatalogRow, error) {
	fields, err := c.r.Read()
	if errors.Is(err, io.EOF) {
		return app.CatalogRow{}, io.EOF
	}
	var perr *csv.ParseError
	if errors.As(err, &perr) {
		return app.CatalogRow{Line: perr.Line, Err: perr.Err}, nil
	}
	if err != nil {
		return app.CatalogRow{}, err
	}
	line, _ := c.r.FieldPos(0)
	get := func(name string) string {
		if i, ok := c.cols[name]; ok && i < len(fields) {
			return strings.TrimSpace(fields[i])
		}
		return ""
	}
	rec := record{ID: get("id"), Name: get("name"), Owner: get("owner"), Email: get("email"), Phone: get("phone"),
		Website: get("website"), Vertical: get("vertical"), Street: get("street"), City: get("city"),
		State: get("state"), ZIP: get("zip"), Source: get("source")}
	if cats := get("categories"); cats != "" {
		rec.Categories = strings.Split(cats, ";")
	}
	row := app.CatalogRow{Line: line}
	if rec.Lat, err = optFloat(get("lat")); err != nil {
		row.Err = fmt.Errorf("lat: %w", err)
	} else if rec.Lng, err = optFloat(get("lng")); err != nil {
		row.Err = fmt.Errorf("lng: %w", err)
	} else if rec.GapScore, err = optInt(get("gapScore")); err != nil {
		row.Err = fmt.Errorf("gapScore: %w", err)
	} else if rec.ListedAt, err = optTime(get("listedAt")); err != nil {
		row.Err = fmt.Errorf("listedAt: %w", err)
	}
	row.Input = rec.input()
	return row, nil
}

func optFloat(s string) (*float64, error) {
	if s == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, errors.New("must be a number")
	}
	return &f, nil
}

func optInt(s string) (*int, error) {
	if s == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil, errors.New("must be an integer")
	}
	return &n, nil
}

func optTime(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, errors.New("must be an RFC 3339 timestamp")
	}
	return &t, nil
}
