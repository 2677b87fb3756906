package catalog_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

func validInput() catalog.BusinessInput {
	return catalog.BusinessInput{ID: "b-1", Name: "Acme  Plumbing", Owner: "Ann Lee", Email: "Ann@AcmePlumbing.com",
		Phone: "(512) 555-0199", Website: "https://www.acmeplumbing.com/about", Vertical: "plumbing",
		Categories: []string{"Plumber", " ", "Drain Cleaning"}, City: "Austin", State: "texas", ZIP: "78701", Source: "organic"}
}

func TestNewBusinessNormalises(t *testing.T) {
	t.Parallel()
	in := validInput()
	in.Phone = "512-472-3000"
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	b, err := catalog.NewBusiness(in, now)
	require.NoError(t, err)
	require.Equal(t, "Acme Plumbing", b.Name())
	require.Equal(t, "Ann@acmeplumbing.com", b.Email())
	require.Equal(t, "acmeplumbing.com", b.EmailDomain())
	require.Equal(t, "+15124723000", b.Phone())
	require.Equal(t, "acmeplumbing.com", b.WebsiteDomain())
	require.Equal(t, "TX", b.State())
	require.Equal(t, []string{"plumber", "drain cleaning"}, b.Categories())
	require.Equal(t, now, b.ListedAt())
	require.Equal(t, 0, b.GapScore(), "website, email and phone present: nothing to gain")
	require.Equal(t, 80, b.Completeness(), "no street")
	require.Equal(t, catalog.Quality(0, 80), b.Quality())
}

func TestNewBusinessRejectsEachBadField(t *testing.T) {
	t.Parallel()
	gap := 101
	cases := map[string]func(*catalog.BusinessInput){
		"id":       func(in *catalog.BusinessInput) { in.ID = "" },
		"name":     func(in *catalog.BusinessInput) { in.Name = "  " },
		"vertical": func(in *catalog.BusinessInput) { in.Vertical = "Plumbing!" },
		"city":     func(in *catalog.BusinessInput) { in.City = "" },
		"state":    func(in *catalog.BusinessInput) { in.State = "ZZ" },
		"zip":      func(in *catalog.BusinessInput) { in.ZIP = "787" },
		"email":    func(in *catalog.BusinessInput) { in.Email = "ann@" },
		"phone":    func(in *catalog.BusinessInput) { in.Phone = "555-0000" },
		"website":  func(in *catalog.BusinessInput) { in.Website = "not a site" },
		"gapScore": func(in *catalog.BusinessInput) { in.GapScore = &gap },
		"lat":      func(in *catalog.BusinessInput) { lat := 30.2; in.Lat = &lat },
	}
	for field, mutate := range cases {
		in := validInput()
		in.Phone = "512-472-3000"
		mutate(&in)
		_, err := catalog.NewBusiness(in, time.Now())
		var fe *catalog.FieldError
		require.ErrorAs(t, err, &fe, field)
		require.Equal(t, field, fe.Field)
	}
}

func TestGapScoreAndQuality(t *testing.T) {
	t.Parallel()
	require.Equal(t, 100, catalog.DeriveGapScore(false, false, false))
	require.Equal(t, 60, catalog.DeriveGapScore(false, true, true))
	require.Equal(t, 0, catalog.DeriveGapScore(true, true, true))
	require.Equal(t, 50, catalog.Quality(100, 100))
	require.Equal(t, 0, catalog.Quality(0, 0))
	require.Equal(t, 27, catalog.Quality(50, 60)) // 17.5 + 9 = 26.5 rounds half up
}
