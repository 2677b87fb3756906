package postgres

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

// catalogRows is big enough that a sequential scan is the planner's honest choice for an
// unindexed predicate, so a plan without one shows the indexes are really usable.
const catalogRows = 50_000

func loadSyntheticCatalog(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	states := []string{"AL", "AZ", "CA", "CO", "FL", "GA", "IL", "MA", "MI", "NC", "NY", "OH", "OR", "PA", "TX", "WA"}
	_, err := pool.Exec(ctx, `INSERT INTO businesses (external_id, name, owner_name, email, email_domain, phone,
			website, website_domain, vertical, categories, city, state, zip, source, gap_score, quality, search, listed_at)
		SELECT 'x' || g, 'Biz ' || g || ' ' || initcap(replace(v, '_', ' ')), 'Owner ' || g,
			'o@d' || g || '.com', 'd' || g || '.com', '+1512' || lpad(g::text, 7, '0'),
			CASE WHEN g % 3 = 0 THEN '' ELSE 'd' || g || '.com' END,
			CASE WHEN g % 3 = 0 THEN '' ELSE 'd' || g || '.com' END,
			v, ARRAY[replace(v, '_', ' ')], 'City' || (g % 400), ($2::text[])[(g % cardinality($2::text[])) + 1],
			lpad((10000 + g % 3000)::text, 5, '0'), 'organic', g % 101, g % 51,
			setweight(to_tsvector('english', 'Biz ' || g || ' ' || v), 'A') ||
				setweight(to_tsvector('english', replace(v, '_', ' ')), 'B'),
			now() - (g % 700) * interval '1 day'
		FROM generate_series(1, $3::int) g,
			LATERAL (SELECT ($1::text[])[(g % cardinality($1::text[])) + 1] AS v) pick`,
		catalog.Verticals(), states, catalogRows)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, "ANALYZE businesses")
	require.NoError(t, err)
}

func TestSearchShapesUseIndexes(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	loadSyntheticCatalog(t, pool)
	plumbing := []string{"plumbing"}

	shapes := map[string]func() (string, args){
		"industry + city, state": func() (string, args) {
			return verticalSearchSQL(app.SearchQuery{Verticals: plumbing, Location: catalog.Location{City: "City7", State: "TX"}, Limit: 10})
		},
		"industry + city": func() (string, args) {
			return verticalSearchSQL(app.SearchQuery{Verticals: plumbing, Location: catalog.Location{City: "City7"}, Limit: 10})
		},
		"industry + state": func() (string, args) {
			return verticalSearchSQL(app.SearchQuery{Verticals: plumbing, Location: catalog.Location{State: "TX"}, Limit: 50})
		},
		"industry + zip": func() (string, args) {
			return verticalSearchSQL(app.SearchQuery{Verticals: plumbing, Location: catalog.Location{ZIP: "10007"}, Limit: 10})
		},
		"industry only (broadest)": func() (string, args) {
			return verticalSearchSQL(app.SearchQuery{Verticals: plumbing, Limit: 50})
		},
		"two verticals": func() (string, args) {
			return verticalSearchSQL(app.SearchQuery{Verticals: []string{"hvac", "plumbing"}, Limit: 10})
		},
		"industry + keyword": func() (string, args) {
			return verticalSearchSQL(app.SearchQuery{Verticals: plumbing, Keywords: []string{"emergency"}, Limit: 10})
		},
		"text fill-in outside the vertical": func() (string, args) {
			return textSearchSQL(app.SearchQuery{Verticals: plumbing, TextTerms: []string{"plumbers"}, Limit: 10})
		},
		"text only (unknown industry) + city": func() (string, args) {
			return textSearchSQL(app.SearchQuery{TextTerms: []string{"sushi"}, Location: catalog.Location{City: "City7"}, Limit: 10})
		},
		"qualify match, batch of 3": func() (string, args) {
			return matchSQL, args{[]*string{ptr("d77.com"), nil, nil}, []*string{ptr("+15120000077"), ptr("+15120000078"), nil},
				[]*string{ptr("biz 77 plumbing"), nil, ptr("biz 79 hvac")}}
		},
	}
	// Shapes with many matches must read the best rows in index order and stop at the limit; a
	// sort of every match is what made the broadest search slow on a million rows. (With a few
	// matches, as in one city here, a bitmap scan and a tiny sort are the right plan.)
	ordered := map[string]bool{"industry + state": true, "industry only (broadest)": true}
	for name, shape := range shapes {
		sql, a := shape()
		var plan []map[string]any
		require.NoError(t, pool.QueryRow(context.Background(), "EXPLAIN (FORMAT JSON) "+sql, a...).Scan(&plan), name)
		root := plan[0]["Plan"].(map[string]any)
		seq, indexed := scans(root)
		raw, _ := json.MarshalIndent(plan, "", " ")
		require.False(t, seq, "%s: sequential scan of businesses:\n%s", name, raw)
		require.True(t, indexed, "%s: no index scan of businesses:\n%s", name, raw)
		if ordered[name] {
			require.False(t, sorts(root), "%s: sorts the matches instead of reading them in index order:\n%s", name, raw)
		}
	}
}

func sorts(node map[string]any) bool {
	if node["Node Type"] == "Sort" || node["Node Type"] == "Incremental Sort" {
		return true
	}
	children, _ := node["Plans"].([]any)
	for _, c := range children {
		if sorts(c.(map[string]any)) {
			return true
		}
	}
	return false
}

func ptr(s string) *string { return &s }

// scans walks a JSON plan and reports whether businesses is read sequentially and through an index.
func scans(node map[string]any) (seq, indexed bool) {
	if node["Relation Name"] == "businesses" || node["Index Name"] != nil {
		switch node["Node Type"] {
		case "Seq Scan":
			seq = true
		case "Index Scan", "Index Only Scan", "Bitmap Heap Scan":
			indexed = true
		}
	}
	children, _ := node["Plans"].([]any)
	for _, c := range children {
		s, i := scans(c.(map[string]any))
		seq, indexed = seq || s, indexed || i
	}
	return seq, indexed
}
