package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cityRow is a cities1000 line with the columns the tool reads.
func cityRow(name, alts, code, country, state, pop string) string {
	f := make([]string, columns)
	f[colName], f[colAlternates], f[colLat], f[colLng], f[colFeatureCode], f[colCountry], f[colAdmin1], f[colPopulation] =
		name, alts, "38.04", "-84.46", code, country, state, pop
	return strings.Join(f, "\t")
}

func TestConvertKeepsUSPlacesAndTheirEnglishNames(t *testing.T) {
	src := strings.Join([]string{
		cityRow("Lexington-Fayette", "Fayette County,Lexington,LEX,Leksington", "PPL", "US", "KY", "314488"),
		cityRow("Harlem", "Garlem,New Harlem", "PPLX", "US", "NY", "116345"),
		cityRow("Queens", "Borough of Queens,Queens", "PPLA2", "US", "NY", "2272771"),
		cityRow("Buffalo (historical)", "", "PPL", "US", "NY", "1000"),
		cityRow("Ghost Town", "", "PPLQ", "US", "NV", "1000"),
		cityRow("Toronto", "", "PPLA", "CA", "08", "2600000"),
		cityRow("Washington, D.C.", "Washington DC", "PPLC", "US", "DC", "601723"),
	}, "\n")
	cities, err := ParseCities(strings.NewReader(src))
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, WriteCities(&b, cities))
	require.Equal(t, "Washington\tDC\t601723\t38.04\t-84.46\t\tWashington DC\n"+
		"Lexington-Fayette\tKY\t314488\t38.04\t-84.46\t\tLexington\n"+
		"Harlem\tNY\t116345\t38.04\t-84.46\t1\t\n"+
		"Queens\tNY\t2272771\t38.04\t-84.46\t1\t\n", b.String())
	_, err = ParseCities(strings.NewReader("too\tfew"))
	require.Error(t, err)
}
