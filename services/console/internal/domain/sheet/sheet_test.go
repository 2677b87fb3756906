package sheet_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/console/internal/domain/sheet"
)

func names(ls []sheet.Lead) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Name
	}
	return out
}

func TestAQueryIsNormalized(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text, sort string
		page       int
		want       sheet.Query
		browsing   bool
	}{
		{"", "", 0, sheet.Query{Sort: sheet.Newest, Page: 1}, true},
		{"  ", "newest", 3, sheet.Query{Sort: sheet.Newest, Page: 3}, true},
		{" acme ", "name", -2, sheet.Query{Text: "acme", Sort: sheet.ByName, Page: 1}, false},
		{"", "oldest", 1, sheet.Query{Sort: sheet.Oldest, Page: 1}, false},
		{"", "Name", 1, sheet.Query{Sort: sheet.Newest, Page: 1}, true}, // orders are named exactly
		{"x", "business'--", 2, sheet.Query{Text: "x", Sort: sheet.Newest, Page: 2}, false},
	} {
		q := sheet.NewQuery(tc.text, tc.sort, tc.page)
		require.Equal(t, tc.want, q, "%q %q %d", tc.text, tc.sort, tc.page)
		require.Equal(t, tc.browsing, q.Browsing(), "%q %q", tc.text, tc.sort)
	}
}

func TestASearchMatchesAnyShownFieldInAnyCase(t *testing.T) {
	t.Parallel()
	leads := []sheet.Lead{
		{Name: "Ann Lee", Email: "ann@acme.example", BusinessName: "Acme Plumbing"},
		{Name: "Bob", Email: "bob@example.com", Phone: "+15125550100"},
		{Name: "Cy", Email: "cy@example.com", Source: "ZAPIER"},
		{Name: "Di", Email: "di@example.com", ID: "lead_acme"}, // the id is not searched
	}
	for needle, want := range map[string][]string{
		"acme":    {"Ann Lee"},
		"ANN":     {"Ann Lee"},
		"5550100": {"Bob"},
		"zapier":  {"Cy"},
		"example": {"Ann Lee", "Bob", "Cy", "Di"},
		"nobody":  {},
	} {
		r := sheet.Search(append([]sheet.Lead(nil), leads...), sheet.NewQuery(needle, "", 1))
		require.Equal(t, want, names(r.Leads), needle)
		require.Equal(t, len(want), r.Matched, needle)
	}
}

func TestASearchOrdersStably(t *testing.T) {
	t.Parallel()
	// Newest first, as the API lists them.
	leads := func() []sheet.Lead {
		return []sheet.Lead{
			{Name: "bea", BusinessName: "Zed", Email: "1"},
			{Name: "Al", BusinessName: "yak", Email: "2"},
			{Name: "Bea", BusinessName: "Xu", Email: "3"},
			{Name: "cy", BusinessName: "yak", Email: "4"},
		}
	}
	emails := func(ls []sheet.Lead) string {
		s := ""
		for _, l := range ls {
			s += l.Email
		}
		return s
	}
	for sort, want := range map[string]string{
		"newest":   "1234",
		"oldest":   "4321",
		"name":     "2134", // case-insensitive; the two Beas keep newest first
		"business": "3241", // yak and yak keep newest first
	} {
		require.Equal(t, want, emails(sheet.Search(leads(), sheet.NewQuery("", sort, 1)).Leads), sort)
	}
}

func TestASearchPages(t *testing.T) {
	t.Parallel()
	leads := func() []sheet.Lead {
		ls := make([]sheet.Lead, 60)
		for i := range ls {
			ls[i] = sheet.Lead{Name: fmt.Sprintf("L%02d", i)}
		}
		return ls
	}
	for _, tc := range []struct {
		page, n, next, prev int
		first               string
	}{
		{1, 25, 2, 0, "L00"},
		{2, 25, 3, 1, "L25"},
		{3, 10, 0, 2, "L50"},
		{4, 0, 0, 3, ""},
		{math.MaxInt, 0, 0, math.MaxInt - 1, ""}, // far past the end, without overflowing
	} {
		r := sheet.Search(leads(), sheet.NewQuery("l", "", tc.page))
		require.Len(t, r.Leads, tc.n, "page %d", tc.page)
		require.Equal(t, 60, r.Matched)
		require.Equal(t, tc.next, r.Next, "page %d", tc.page)
		require.Equal(t, tc.prev, r.Prev, "page %d", tc.page)
		if tc.first != "" {
			require.Equal(t, tc.first, r.Leads[0].Name)
		}
	}
}
