package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

func TestCatalogUpsertIsIdempotent(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	w := NewCatalogWriter(pool)
	a := business(t, func(in *catalog.BusinessInput) {})
	b := business(t, func(in *catalog.BusinessInput) { in.ID, in.Name = "b2", "Bolt Electric" })
	ins, upd, err := w.Upsert(ctx, []catalog.Business{a, b})
	require.NoError(t, err)
	require.Equal(t, [2]int{2, 0}, [2]int{ins, upd})

	versions := func() map[string][2]string { // external id -> id and row version
		rows, err := pool.Query(ctx, "SELECT external_id, id::text, xmin::text FROM businesses")
		require.NoError(t, err)
		out := map[string][2]string{}
		for rows.Next() {
			var ext, id, xmin string
			require.NoError(t, rows.Scan(&ext, &id, &xmin))
			out[ext] = [2]string{id, xmin}
		}
		require.NoError(t, rows.Err())
		return out
	}
	before := versions()

	renamed := business(t, func(in *catalog.BusinessInput) { in.Name = "Acme Plumbing & Drains" })
	ins, upd, err = w.Upsert(ctx, []catalog.Business{renamed, b})
	require.NoError(t, err)
	require.Equal(t, [2]int{0, 2}, [2]int{ins, upd}, "an unchanged row counts as updated")
	after := versions()
	require.Equal(t, before["b1"][0], after["b1"][0], "an update keeps the id")
	require.NotEqual(t, before["b1"][1], after["b1"][1], "a changed row is rewritten")
	require.Equal(t, before["b2"], after["b2"], "an unchanged row is left as it was")

	var total int
	var name string
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*), max(name) FILTER (WHERE external_id = 'b1') FROM businesses").Scan(&total, &name))
	require.Equal(t, 2, total)
	require.Equal(t, "Acme Plumbing & Drains", name)
}

func TestCatalogSearchRanksAndFilters(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	gapHigh, gapLow := 90, 10
	load(t, pool,
		business(t, func(in *catalog.BusinessInput) { in.ID, in.GapScore = "austin-low", &gapLow }),
		business(t, func(in *catalog.BusinessInput) {
			in.ID, in.Name, in.Phone, in.GapScore = "austin-high", "Drain Kings", phoneN(1), &gapHigh
		}),
		business(t, func(in *catalog.BusinessInput) {
			in.ID, in.Name, in.City, in.State, in.ZIP, in.Phone = "dallas", "Dallas Pipes", "Dallas", "TX", "75201", phoneN(2)
		}),
		business(t, func(in *catalog.BusinessInput) {
			in.ID, in.Name, in.Vertical, in.Categories, in.Phone = "no-phone", "Quiet Plumbing", "plumbing", nil, ""
		}),
		// A hardware store that mentions plumbing: a text match outside the vertical.
		business(t, func(in *catalog.BusinessInput) {
			in.ID, in.Name, in.Vertical, in.Categories, in.Phone = "hardware", "Plumbing Supply Hardware", "hardware_store", []string{"tools"}, phoneN(3)
		}),
	)
	c := NewCatalog(pgkit.PrimaryReads(pool))
	q := app.SearchQuery{Verticals: []string{"plumbing"}, TextTerms: []string{"plumber"}, Limit: 10,
		Location: catalog.Location{City: "austin", State: "TX"}}
	got, err := c.SearchVertical(ctx, q)
	require.NoError(t, err)
	require.Len(t, got, 2, "Dallas is filtered out, the business without a phone is not a lead")
	require.Equal(t, "Drain Kings", got[0].BusinessName, "the higher gap score ranks first")
	require.Greater(t, got[0].Rank, got[1].Rank)
	require.GreaterOrEqual(t, got[1].Rank, catalog.VerticalMatchPoints)

	q.Location = catalog.Location{ZIP: "75201"}
	got, err = c.SearchVertical(ctx, q)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "Dallas Pipes", got[0].BusinessName)

	q = app.SearchQuery{Verticals: []string{"plumbing"}, TextTerms: []string{"plumbing"}, Limit: 10}
	text, err := c.SearchText(ctx, q)
	require.NoError(t, err)
	require.Len(t, text, 1)
	require.Equal(t, "Plumbing Supply Hardware", text[0].BusinessName)
	require.Less(t, text[0].Rank, catalog.VerticalMatchPoints+1)

	q = app.SearchQuery{Verticals: []string{"plumbing"}, TextTerms: []string{"plumbing"}, Limit: 10, Keywords: []string{"drain"}}
	got, err = c.SearchVertical(ctx, q)
	require.NoError(t, err)
	require.Len(t, got, 1, "keywords narrow by name or categories")
	require.Equal(t, "Drain Kings", got[0].BusinessName)

	q.Keywords = []string{"100%_off"}
	got, err = c.SearchVertical(ctx, q)
	require.NoError(t, err)
	require.Empty(t, got, "LIKE wildcards in keywords are literal")
}

func TestCatalogMatch(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	load(t, pool,
		business(t, func(in *catalog.BusinessInput) {}),
		business(t, func(in *catalog.BusinessInput) {
			in.ID, in.Name, in.Email, in.Website, in.Phone = "b2", "Gmail Bakery", "gb@gmail.com", "", phoneN(7)
		}),
	)
	c := NewCatalog(pgkit.PrimaryReads(pool))
	cases := []struct {
		q    app.MatchQuery
		want app.Match
	}{
		{app.MatchQuery{Domain: "acmeplumbing.com"}, app.Match{Found: true, HasWebsite: true}},
		{app.MatchQuery{Phone: phoneN(7)}, app.Match{Found: true, HasWebsite: false}},
		{app.MatchQuery{BusinessName: "GMAIL bakery"}, app.Match{Found: true, HasWebsite: false}},
		{app.MatchQuery{Domain: "other.com", Phone: "+15125550000", BusinessName: "Nobody"}, app.Match{}},
		{app.MatchQuery{}, app.Match{}},
	}
	qs := make([]app.MatchQuery, len(cases))
	for i, tc := range cases {
		qs[i] = tc.q
	}
	got, err := c.MatchAll(ctx, qs)
	require.NoError(t, err)
	for i, tc := range cases {
		require.Equal(t, tc.want, got[i], "%+v", tc.q)
	}
}

func TestCatalogStats(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	c := NewCatalog(pgkit.PrimaryReads(pool))

	empty, err := c.Stats(ctx, now)
	require.NoError(t, err)
	require.Zero(t, empty.Total)
	require.Nil(t, empty.DateRange.Earliest)
	require.NotNil(t, empty.TopCities)

	recent := now.Add(-24 * time.Hour)
	load(t, pool,
		business(t, func(in *catalog.BusinessInput) {}), // listed 2026-01-01, website
		business(t, func(in *catalog.BusinessInput) {
			in.ID, in.Website, in.Phone, in.ListedAt = "b2", "", phoneN(2), &recent
		}),
		business(t, func(in *catalog.BusinessInput) {
			in.ID, in.Website, in.Phone, in.City, in.Vertical = "b3", "", phoneN(3), "Dallas", "dentist"
		}),
	)
	s, err := c.Stats(ctx, now)
	require.NoError(t, err)
	require.Equal(t, 3, s.Total)
	require.Equal(t, 2, s.NoWebsite)
	require.InDelta(t, 40.0, s.AvgGapScore, 0.01) // 0, 60, 60
	require.Equal(t, map[string]int{"plumbing": 2, "dentist": 1}, s.ByVertical)
	require.Equal(t, []app.CityCount{{City: "Austin, TX", Count: 2}, {City: "Dallas, TX", Count: 1}}, s.TopCities)
	require.Equal(t, []app.StateCount{{State: "TX", Count: 3}}, s.TopStates)
	require.Equal(t, 1, s.Last7Days)
	require.Equal(t, "2026-01-01T00:00:00.000Z", *s.DateRange.Earliest)
	require.Equal(t, "2026-01-09T00:00:00.000Z", *s.DateRange.Latest)
}
