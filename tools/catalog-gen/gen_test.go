package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nyaruka/phonenumbers"
	"github.com/stretchr/testify/require"
)

var asOf = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func generate(t *testing.T, seed uint64, n int) []Business {
	t.Helper()
	g := NewGenerator(seed, asOf)
	out := make([]Business, n)
	for i := range out {
		out[i] = g.Next(i)
	}
	return out
}

func TestSameSeedSameCatalog(t *testing.T) {
	t.Parallel()
	require.Equal(t, generate(t, 42, 500), generate(t, 42, 500))
	require.NotEqual(t, generate(t, 42, 50), generate(t, 43, 50))
}

func TestGeneratedRowsAreRealistic(t *testing.T) {
	t.Parallel()
	rows := generate(t, 7, 5000)
	ids, domains := map[string]bool{}, map[string]bool{}
	var withSite, recent int
	for _, b := range rows {
		require.False(t, ids[b.ID], "ids are unique")
		ids[b.ID] = true
		if b.Phone != "" {
			num, err := phonenumbers.Parse(b.Phone, "US")
			require.NoError(t, err)
			require.True(t, phonenumbers.IsValidNumber(num), b.Phone)
			require.True(t, strings.HasPrefix(b.Phone, "+1"))
		}
		if b.Website != "" {
			withSite++
			domain := strings.TrimPrefix(b.Website, "https://www.")
			require.False(t, domains[domain], "each website is its own: %s", domain)
			domains[domain] = true
			if b.Email != "" {
				require.True(t, strings.HasSuffix(b.Email, "@"+domain), "mail is on the website's domain")
			}
		}
		require.True(t, b.GapScore >= 0 && b.GapScore <= 100)
		require.NotEmpty(t, b.Categories)
		require.Len(t, b.ZIP, 5)
		require.False(t, b.ListedAt.After(asOf))
		if asOf.Sub(b.ListedAt) <= 7*24*time.Hour {
			recent++
		}
	}
	require.InDelta(t, 0.6, float64(withSite)/float64(len(rows)), 0.05)
	require.Positive(t, recent)
}

func TestEveryStateHasACity(t *testing.T) {
	t.Parallel()
	states := map[string]bool{}
	for _, c := range cities {
		states[c.State] = true
		for _, code := range c.AreaCodes {
			num, err := phonenumbers.Parse("+1"+code+"2345678", "US")
			require.NoError(t, err)
			require.True(t, phonenumbers.IsValidNumber(num), "area code %s of %s", code, c.Name)
		}
	}
	require.Len(t, states, 51)
}

func TestWriteFormats(t *testing.T) {
	t.Parallel()
	var nd bytes.Buffer
	require.NoError(t, write(&nd, "ndjson", NewGenerator(1, asOf), 3))
	lines := strings.Split(strings.TrimSpace(nd.String()), "\n")
	require.Len(t, lines, 3)
	var b Business
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &b))
	require.Equal(t, "gen1-0000000", b.ID)

	var c bytes.Buffer
	require.NoError(t, write(&c, "csv", NewGenerator(1, asOf), 3))
	records, err := csv.NewReader(&c).ReadAll()
	require.NoError(t, err)
	require.Len(t, records, 4)
	require.Equal(t, csvHeader, records[0])
	require.Equal(t, b.Name, records[1][1])

	require.Error(t, write(&c, "xml", NewGenerator(1, asOf), 1))
}
