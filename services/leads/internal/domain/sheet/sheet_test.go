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

// Issue 26 finding 1: a repeat of a lead was answered "merged" and dropped.
func TestLeadUpdateMergesFieldByField(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	t1 := t0.Add(time.Hour)
	for _, c := range []struct {
		name    string
		first   sheet.LeadInput
		repeat  sheet.LeadInput
		changed []string
		check   func(t *testing.T, l sheet.Lead)
	}{
		{"fills what was empty", sheet.LeadInput{Name: "Ann", Email: "a@x.com"},
			sheet.LeadInput{Email: "A@X.COM", Phone: "+1 512 472 3000 x5", Notes: "call after 5", Source: "crm"},
			[]string{"notes", "phone", "source"}, func(t *testing.T, l sheet.Lead) {
				require.Equal(t, []string{"Ann", "+15124723000", "5", "call after 5", "crm"},
					[]string{l.Name(), l.Phone(), l.PhoneExtension(), l.Notes(), l.Source()})
			}},
		{"a newer value replaces", sheet.LeadInput{Name: "Ann", Email: "a@x.com", BusinessName: "Old Co"},
			sheet.LeadInput{Name: "Ann Lee", Email: "a@x.com", BusinessName: "New Co"},
			[]string{"businessName", "name"}, func(t *testing.T, l sheet.Lead) {
				require.Equal(t, []string{"Ann Lee", "New Co"}, []string{l.Name(), l.BusinessName()})
			}},
		{"absent fields blank nothing", sheet.LeadInput{Name: "Ann", Email: "a@x.com", Phone: "512 472 3000", Notes: "n", Source: "crm",
			Extras: map[string]string{"tier": "gold"}},
			sheet.LeadInput{Email: "a@x.com"},
			nil, func(t *testing.T, l sheet.Lead) {
				require.Equal(t, []string{"Ann", "+15124723000", "n", "crm", "gold"},
					[]string{l.Name(), l.Phone(), l.Notes(), l.Source(), l.Extras()["tier"]})
			}},
		{"the same values change nothing", sheet.LeadInput{Name: "Ann", Email: "a@x.com", Phone: "512 472 3000"},
			sheet.LeadInput{Name: " Ann ", Email: "a@x.com", Phone: "(512) 472-3000"}, nil, nil},
		{"extras merge by key", sheet.LeadInput{Email: "a@x.com", Extras: map[string]string{"tier": "gold", "utm": "x"}},
			sheet.LeadInput{Email: "a@x.com", Extras: map[string]string{"tier": "platinum"}},
			[]string{"extras.tier"}, func(t *testing.T, l sheet.Lead) {
				require.Equal(t, map[string]string{"tier": "platinum", "utm": "x"}, l.Extras())
			}},
		{"a readable phone replaces a raw one", sheet.LeadInput{Email: "a@x.com", Phone: "030 1234567"},
			sheet.LeadInput{Email: "a@x.com", Phone: "030 1234567", Regions: []string{"DE"}},
			[]string{"phone"}, func(t *testing.T, l sheet.Lead) {
				require.Equal(t, []string{"+49301234567", ""}, []string{l.Phone(), l.PhoneRaw()})
			}},
		{"another email is another lead", sheet.LeadInput{Email: "a@x.com"}, sheet.LeadInput{Name: "B", Email: "b@x.com"}, nil, nil},
	} {
		l, err := sheet.NewLead("acc_1", c.first, t0)
		require.NoError(t, err, c.name)
		changed := l.Update(c.repeat, t1)
		require.Equal(t, c.changed, changed, c.name)
		for _, f := range c.changed {
			require.Equal(t, t1, l.FieldUpdatedAt()[f], c.name)
		}
		require.Len(t, l.FieldUpdatedAt(), len(c.changed), c.name)
		require.Equal(t, t0, l.CreatedAt(), c.name)
		if c.check != nil {
			c.check(t, l)
		}
	}
}
