// Package postgres implements the leads stores on PostgreSQL (schema leads).
package postgres

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/geo"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

// Catalog reads the businesses table. Every read tolerates lag (the catalog changes by imports
// only), so it goes to the read replica when there is one within the lag bound.
type Catalog struct{ reads *pgkit.Reads }

func NewCatalog(reads *pgkit.Reads) *Catalog { return &Catalog{reads: reads} }

// args numbers query parameters as they are added.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return fmt.Sprintf("$%d", len(*a))
}

// filters are the conditions shared by both search shapes: reachable businesses only (a lead
// needs an email and a phone), the location, and every keyword.
func filters(q app.SearchQuery, a *args) string {
	var b strings.Builder
	b.WriteString(" AND email <> '' AND phone <> ''")
	switch loc := q.Location; {
	case q.Near != nil:
		// A box around the point first (plain comparisons), then the true distance.
		dLat := q.RadiusMiles / milesPerDegree
		dLng := q.RadiusMiles / (milesPerDegree * math.Max(0.05, math.Cos(q.Near.Lat*math.Pi/180)))
		b.WriteString(fmt.Sprintf(" AND lat BETWEEN %s AND %s AND lng BETWEEN %s AND %s AND %s <= %s",
			a.add(q.Near.Lat-dLat), a.add(q.Near.Lat+dLat), a.add(q.Near.Lng-dLng), a.add(q.Near.Lng+dLng),
			distanceSQL(q, a), a.add(q.RadiusMiles)))
	case loc.ZIP != "":
		b.WriteString(" AND zip = " + a.add(loc.ZIP))
	case loc.City != "":
		// One spelling keeps the (vertical, lower(city), quality) index's order; Saint, Fort and
		// Mount cities also match their abbreviated spellings.
		if sp := catalog.CitySpellings(loc.City); len(sp) == 1 {
			b.WriteString(" AND lower(city) = " + a.add(sp[0]))
		} else {
			b.WriteString(" AND lower(city) = ANY(" + a.add(sp) + ")")
		}
		if loc.State != "" {
			b.WriteString(" AND state = " + a.add(loc.State))
		}
	case loc.State != "":
		b.WriteString(" AND state = " + a.add(loc.State))
	}
	for _, k := range q.Keywords {
		b.WriteString(fmt.Sprintf(" AND (search @@ plainto_tsquery('english', %s) OR name ILIKE %s)",
			a.add(k), a.add("%"+likeEscaper.Replace(k)+"%")))
	}
	return b.String()
}

// milesPerDegree is a degree of latitude in miles.
const milesPerDegree = 69.0

// distanceSQL is the great-circle distance in miles from q.Near to a business (geo.DistanceMiles).
func distanceSQL(q app.SearchQuery, a *args) string {
	lat, lng := a.add(q.Near.Lat), a.add(q.Near.Lng)
	return fmt.Sprintf("(%v * 2 * asin(least(1, sqrt(power(sin(radians(lat - %s) / 2), 2) + "+
		"cos(radians(%s)) * cos(radians(lat)) * power(sin(radians(lng - %s) / 2), 2)))))",
		geo.EarthRadiusMiles, lat, lat, lng)
}

// order is a search's ORDER BY: best quality first, or, around a point, nearest mile first and
// best quality within a mile.
func order(q app.SearchQuery, a *args) string {
	if q.Near == nil {
		return " ORDER BY quality DESC, id"
	}
	return " ORDER BY ceil(" + distanceSQL(q, a) + "), quality DESC, id"
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

const foundColumns = `SELECT name, owner_name, email, phone, source, `

// SearchVertical reads the best rows of the asked verticals off (vertical, ..., quality DESC).
func (c *Catalog) SearchVertical(ctx context.Context, q app.SearchQuery) ([]app.Found, error) {
	if len(q.Verticals) == 0 {
		return nil, nil
	}
	sql, a := verticalSearchSQL(q)
	return c.found(ctx, sql, a)
}

// SearchText finds businesses outside the asked verticals whose name, vertical or categories
// match the industry text.
func (c *Catalog) SearchText(ctx context.Context, q app.SearchQuery) ([]app.Found, error) {
	sql, a := textSearchSQL(q)
	return c.found(ctx, sql, a)
}

// verticalSearchSQL reads each vertical's best rows in index order (vertical = $n, not = ANY,
// which PostgreSQL cannot scan in order) and merges them; a LIMIT stops each scan early.
func verticalSearchSQL(q app.SearchQuery) (string, args) {
	var a args
	limit := a.add(q.Limit)
	one := func(vertical, sortKeys string) string {
		return foundColumns + fmt.Sprintf("%d + quality AS rank%s FROM businesses WHERE vertical = %s",
			catalog.VerticalMatchPoints, sortKeys, a.add(vertical)) + filters(q, &a) + order(q, &a) + " LIMIT " + limit
	}
	if len(q.Verticals) == 1 {
		return one(q.Verticals[0], ""), a
	}
	keys, outer := ", quality, id", " ORDER BY quality DESC, id"
	if q.Near != nil {
		keys, outer = ", quality, id, ceil("+distanceSQL(q, &a)+") AS mile", " ORDER BY mile, quality DESC, id"
	}
	parts := make([]string, len(q.Verticals))
	for i, v := range q.Verticals {
		parts[i] = "(" + one(v, keys) + ")"
	}
	return "SELECT name, owner_name, email, phone, source, rank FROM (" + strings.Join(parts, " UNION ALL ") +
		") best" + outer + " LIMIT " + limit, a
}

func textSearchSQL(q app.SearchQuery) (string, args) {
	var a args
	sql := foundColumns + fmt.Sprintf("%d + quality FROM businesses WHERE search @@ websearch_to_tsquery('english', %s)",
		catalog.TextMatchPoints, a.add(anyPhrase(q.TextTerms)))
	if len(q.Verticals) > 0 {
		sql += " AND NOT (vertical = ANY(" + a.add(q.Verticals) + "))"
	}
	return sql + filters(q, &a) + order(q, &a) + " LIMIT " + a.add(q.Limit), a
}

// anyPhrase writes terms as a websearch query matching any one of them as a phrase.
func anyPhrase(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, " ") + `"`
	}
	return strings.Join(quoted, " or ")
}

func (c *Catalog) found(ctx context.Context, sql string, a args) ([]app.Found, error) {
	rows, err := c.reads.Pool().Query(ctx, sql, a...)
	if err != nil {
		return nil, fmt.Errorf("search catalog: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (app.Found, error) {
		var f app.Found
		err := r.Scan(&f.BusinessName, &f.OwnerName, &f.Email, &f.Phone, &f.Source, &f.Rank)
		return f, err
	})
}

// MatchAll finds, for every query at once, a business with the lead's email domain (as email or
// website domain), phone or exact name: one statement, index probes per query row. Absent fields
// are NULL, which matches nothing (an empty string would match every row without one).
func (c *Catalog) MatchAll(ctx context.Context, qs []app.MatchQuery) ([]app.Match, error) {
	domains, phones, names := make([]*string, len(qs)), make([]*string, len(qs)), make([]*string, len(qs))
	for i, q := range qs {
		domains[i], phones[i], names[i] = nonEmpty(q.Domain), nonEmpty(q.Phone), nonEmpty(strings.ToLower(q.BusinessName))
	}
	rows, err := c.reads.Pool().Query(ctx, matchSQL, domains, phones, names)
	if err != nil {
		return nil, fmt.Errorf("match catalog: %w", err)
	}
	out := make([]app.Match, len(qs))
	var (
		i     int
		found bool
		site  bool
	)
	_, err = pgx.ForEachRow(rows, []any{&i, &found, &site}, func() error {
		out[i-1] = app.Match{Found: found, HasWebsite: site}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("match catalog: %w", err)
	}
	return out, nil
}

const matchSQL = `SELECT q.i, m.found, m.has_website
	FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS q(domain, phone, name, i),
	LATERAL (SELECT count(*) > 0 AS found, coalesce(bool_or(website <> ''), false) AS has_website
		FROM (SELECT website FROM businesses b
			WHERE b.email_domain = q.domain OR b.website_domain = q.domain OR b.phone = q.phone
				OR lower(b.name) = q.name
			LIMIT 20) hit) m`

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Version reads the counter every import bumps.
func (c *Catalog) Version(ctx context.Context) (int64, error) {
	var v int64
	err := c.reads.Pool().QueryRow(ctx, "SELECT version FROM catalog_version").Scan(&v)
	return v, err
}

// topN is the length of the topCities and topStates lists.
const topN = 10

// Stats aggregates the whole catalog in one snapshot.
func (c *Catalog) Stats(ctx context.Context, now time.Time) (app.Stats, error) {
	s := app.Stats{ByVertical: map[string]int{}, TopCities: []app.CityCount{}, TopStates: []app.StateCount{},
		UpdatedAt: httpx.Timestamp(now)}
	err := pgx.BeginTxFunc(ctx, c.reads.Pool(), pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var (
			avg              float64
			earliest, latest *time.Time
		)
		err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE website = ''), coalesce(avg(gap_score), 0),
			count(*) FILTER (WHERE listed_at >= $1), min(listed_at), max(listed_at) FROM businesses`,
			now.Add(-7*24*time.Hour)).Scan(&s.Total, &s.NoWebsite, &avg, &s.Last7Days, &earliest, &latest)
		if err != nil {
			return fmt.Errorf("totals: %w", err)
		}
		s.AvgGapScore = math.Round(avg*10) / 10
		if earliest != nil {
			e, l := httpx.Timestamp(*earliest), httpx.Timestamp(*latest)
			s.DateRange = app.DateRange{Earliest: &e, Latest: &l}
		}
		rows, _ := tx.Query(ctx, `SELECT vertical, count(*) FROM businesses GROUP BY vertical`)
		var (
			name  string
			count int
		)
		if _, err := pgx.ForEachRow(rows, []any{&name, &count}, func() error { s.ByVertical[name] = count; return nil }); err != nil {
			return fmt.Errorf("by vertical: %w", err)
		}
		rows, _ = tx.Query(ctx, `SELECT city || ', ' || state, count(*) FROM businesses
			GROUP BY city, state ORDER BY count(*) DESC, city, state LIMIT $1`, topN)
		if _, err := pgx.ForEachRow(rows, []any{&name, &count}, func() error {
			s.TopCities = append(s.TopCities, app.CityCount{City: name, Count: count})
			return nil
		}); err != nil {
			return fmt.Errorf("top cities: %w", err)
		}
		rows, _ = tx.Query(ctx, `SELECT state::text, count(*) FROM businesses
			GROUP BY state ORDER BY count(*) DESC, state LIMIT $1`, topN)
		if _, err := pgx.ForEachRow(rows, []any{&name, &count}, func() error {
			s.TopStates = append(s.TopStates, app.StateCount{State: name, Count: count})
			return nil
		}); err != nil {
			return fmt.Errorf("top states: %w", err)
		}
		return nil
	})
	return s, err
}
