package catalogfile_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/leads/internal/adapters/catalogfile"
	"github.com/bizassist/bizassist/services/leads/internal/app"
)

func readAll(t *testing.T, rows app.CatalogRows) []app.CatalogRow {
	t.Helper()
	var out []app.CatalogRow
	for {
		r, err := rows.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, r)
	}
}

func TestCSV(t *testing.T) {
	t.Parallel()
	file := "id,name,vertical,categories,city,state,lat,lng,gapScore,listedAt\n" +
		"a,Acme,plumbing,plumber;drains,Austin,TX,30.2,-97.7,40,2026-01-02T03:04:05Z\n" +
		"b,Bolt,electrician,,Austin,TX,north,,,\n" +
		"\"c,unterminated\n"
	rows, err := catalogfile.Open(strings.NewReader(file), "csv")
	require.NoError(t, err)
	got := readAll(t, rows)
	require.Len(t, got, 3)

	require.NoError(t, got[0].Err)
	require.Equal(t, 2, got[0].Line)
	in := got[0].Input
	require.Equal(t, []string{"plumber", "drains"}, in.Categories)
	require.Equal(t, 40, *in.GapScore)
	require.InDelta(t, -97.7, *in.Lng, 1e-9)
	require.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), in.ListedAt.UTC())

	require.EqualError(t, got[1].Err, "lat: must be a number")
	require.Equal(t, 3, got[1].Line)
	require.Error(t, got[2].Err, "a broken quote is a bad row, not the end of the import")
}

func TestCSVNeedsTheRequiredColumns(t *testing.T) {
	t.Parallel()
	_, err := catalogfile.Open(strings.NewReader("id,name,city\n"), "csv")
	require.ErrorContains(t, err, `"vertical"`)
}

func TestNDJSON(t *testing.T) {
	t.Parallel()
	file := `{"id":"a","name":"Acme","vertical":"plumbing","city":"Austin","state":"TX","categories":["plumber"]}` + "\n\n" +
		`{"id":"b","nmae":"typo"}` + "\n" +
		`not json` + "\n"
	rows, err := catalogfile.Open(strings.NewReader(file), "ndjson")
	require.NoError(t, err)
	got := readAll(t, rows)
	require.Len(t, got, 3)
	require.NoError(t, got[0].Err)
	require.Equal(t, "Acme", got[0].Input.Name)
	require.Equal(t, 3, got[1].Line, "blank lines still count")
	require.ErrorContains(t, got[1].Err, "nmae")
	require.Error(t, got[2].Err)
}

func TestUnknownFormat(t *testing.T) {
	t.Parallel()
	_, err := catalogfile.Open(strings.NewReader(""), "xml")
	require.Error(t, err)
}
