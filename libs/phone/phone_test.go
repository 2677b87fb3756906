package phone_test

import (
	"testing"

	"github.com/nyaruka/phonenumbers"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/phone"
)

func TestParse(t *testing.T) {
	t.Parallel()
	p, err := phone.Parse("(512) 472-3000")
	require.NoError(t, err)
	require.Equal(t, phone.Number{E164: "+15124723000", Region: "US"}, p)

	p, err = phone.Parse("+44 20 7946 0958")
	require.NoError(t, err)
	require.Equal(t, "GB", p.Region)

	for _, bad := range []string{"", "12345", "+1 000 000 0000", "phone"} {
		_, err := phone.Parse(bad)
		require.ErrorIs(t, err, phone.ErrInvalid, bad)
	}
}

// The numbers of issue 26 finding 2: every one was stored as "" or lost its extension.
func TestParseIssue26(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in      string
		regions []string
		want    phone.Number
	}{
		{"0049 30 1234567", nil, phone.Number{E164: "+49301234567", Region: "DE"}},
		{"00 44 20 7946 0958", nil, phone.Number{E164: "+442079460958", Region: "GB"}},
		{"011 49 30 1234567", nil, phone.Number{E164: "+49301234567", Region: "DE"}},
		{"030 1234567", []string{"DE"}, phone.Number{E164: "+49301234567", Region: "DE"}},
		// +44 7911 is a Guernsey range of the UK plan: dialled from GB, it belongs to GG.
		{"07911 123456", []string{"gb"}, phone.Number{E164: "+447911123456", Region: "GG"}},
		{"07400 123456", []string{"XX", "GB"}, phone.Number{E164: "+447400123456", Region: "GB"}},
		{"+1 (512) 555-0134 ext. 12", nil, phone.Number{E164: "+15125550134", Extension: "12", Region: "US"}},
		{"(512) 472-3000 x7", nil, phone.Number{E164: "+15124723000", Extension: "7", Region: "US"}},
		// 0113 is Leeds in GB, not the US international prefix followed by 3.
		{"0113 496 0000", []string{"GB"}, phone.Number{E164: "+441134960000", Region: "GB"}},
		{"+49 30 1234567", []string{"GB"}, phone.Number{E164: "+49301234567", Region: "DE"}},
	} {
		got, err := phone.Parse(c.in, c.regions...)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	// A national number with no region saying where it is from stays unparsed, never guessed.
	for _, bad := range []string{"030 1234567", "07911 123456", "0113 496 0000"} {
		_, err := phone.Parse(bad)
		require.ErrorIs(t, err, phone.ErrInvalid, bad)
	}
}

// Each country's example numbers from libphonenumber's metadata, written nationally (with the
// country as the region), with +, and with the 00 and 011 international prefixes (no region).
func TestParseAcrossCountries(t *testing.T) {
	t.Parallel()
	regions := []string{"AT", "AU", "BR", "CA", "CH", "CN", "DE", "ES", "FR", "GB", "IE", "IN", "IT", "JP",
		"KR", "MX", "NG", "NL", "NZ", "PL", "SE", "SG", "TR", "US", "ZA"}
	for _, r := range regions {
		for _, typ := range []phonenumbers.PhoneNumberType{phonenumbers.FIXED_LINE, phonenumbers.MOBILE} {
			ex := phonenumbers.GetExampleNumberForType(r, typ)
			require.NotNil(t, ex, r)
			want := phone.Number{E164: phonenumbers.Format(ex, phonenumbers.E164), Region: r}
			national := phonenumbers.Format(ex, phonenumbers.NATIONAL)
			intl := phonenumbers.Format(ex, phonenumbers.INTERNATIONAL)
			for _, c := range []struct {
				in     string
				region []string
			}{
				{national, []string{r}},
				{intl, nil},
				{"00" + intl[1:], nil},
				{"011 " + intl[1:], nil},
				{intl, []string{"JP"}},
			} {
				got, err := phone.Parse(c.in, c.region...)
				require.NoError(t, err, "%s %v", c.in, c.region)
				require.Equal(t, want, got, "%s %v", c.in, c.region)
			}
		}
	}
}

// A lead's address says where its national number is from when it has no "country" field.
func TestRegionHintsReadTheAddressCountry(t *testing.T) {
	extras := map[string]string{"address": `{"city":"Berlin","country":"DE"}`}
	require.Equal(t, []string{"", "DE", ""}, phone.RegionHints(extras))
	n, err := phone.Parse("030 1234567", phone.RegionHints(extras)...)
	require.NoError(t, err)
	require.Equal(t, "+49301234567", n.E164)
	_, err = phone.Parse("030 1234567", phone.RegionHints(map[string]string{"address": `{"city":"Austin"}`})...)
	require.ErrorIs(t, err, phone.ErrInvalid, "no hint: a German national number is not a US one")
	require.Equal(t, []string{"GB"}, phone.RegionHints(map[string]string{"country": "GB", "address": "not json"}))
}

// BenchmarkParse: a catalog import parses one number a row, mostly E.164 NANP numbers.
func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := phone.Parse("+18576984455"); err != nil {
			b.Fatal(err)
		}
	}
}
