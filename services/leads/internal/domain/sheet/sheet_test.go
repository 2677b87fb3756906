package sheet_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// Issue 26 finding 2: these were all stored as "" or lost their extension.
func TestNewLeadKeepsPhonesFromEveryCountry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		phone    string
		regions  []string
		e164     string
		ext, raw string
	}{
		{"0049 30 1234567", nil, "+49301234567", "", ""},
		{"00 44 20 7946 0958", nil, "+442079460958", "", ""},
		{"030 1234567", []string{"DE"}, "+49301234567", "", ""},
		{"07911 123456", []string{"", "GB"}, "+447911123456", "", ""},
		{"+1 (512) 555-0134 ext. 12", nil, "+15125550134", "12", ""},
		{"030 1234567", nil, "", "", "030 1234567"},
		{" 07911 123456 ", []string{"US"}, "", "", "07911 123456"},
	} {
		l, err := sheet.NewLead("acc_1", sheet.LeadInput{Email: "a@acme.com", Phone: c.phone, Regions: c.regions}, time.Now())
		require.NoError(t, err)
		require.Equal(t, []string{c.e164, c.ext, c.raw}, []string{l.Phone(), l.PhoneExtension(), l.PhoneRaw()}, c.phone)
	}
}

func TestNewLead(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	l, err := sheet.NewLead("acc_1", sheet.LeadInput{Name: " Ann  Lee ", Email: "Ann@Acme.com", Phone: "512 472 3000"}, now)
	require.NoError(t, err)
	require.Equal(t, "Ann Lee", l.Name())
	require.Equal(t, "Ann@acme.com", l.Email())
	require.Equal(t, "+15124723000", l.Phone())
	require.Equal(t, "api", l.Source())
	require.Equal(t, time.UTC, l.CreatedAt().Location())
	require.Equal(t, leadsevents.LeadID("acc_1", "ann@ACME.com"), l.ID(), "the id is the account's and the email's, any case")

	other, err := sheet.NewLead("acc_1", sheet.LeadInput{Email: "bob@acme.com", Phone: "512 472 3000"}, now)
	require.NoError(t, err)
	require.NotEqual(t, l.ID(), other.ID(), "a shared phone is not a shared identity")

	l, err = sheet.NewLead("acc_1", sheet.LeadInput{Email: "a@acme.com", Phone: "n/a", Source: "webhook"}, now)
	require.NoError(t, err)
	require.Empty(t, l.Phone(), "an unparseable phone is not fatal")
	require.Equal(t, "n/a", l.PhoneRaw(), "an unparseable phone is kept as given")

	_, err = sheet.NewLead("acc_1", sheet.LeadInput{Email: "nope"}, now)
	var fe *sheet.FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "email", fe.Field)
}
