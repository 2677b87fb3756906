package sheet_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

func TestNewLead(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	l, err := sheet.NewLead("lead_1", "acc_1", sheet.LeadInput{Name: " Ann  Lee ", Email: "Ann@Acme.com", Phone: "512 472 3000"}, now)
	require.NoError(t, err)
	require.Equal(t, "Ann Lee", l.Name())
	require.Equal(t, "Ann@acme.com", l.Email())
	require.Equal(t, "+15124723000", l.Phone())
	require.Equal(t, "api", l.Source())
	require.Equal(t, time.UTC, l.CreatedAt().Location())

	l, err = sheet.NewLead("lead_2", "acc_1", sheet.LeadInput{Email: "a@acme.com", Phone: "n/a", Source: "webhook"}, now)
	require.NoError(t, err)
	require.Empty(t, l.Phone(), "an unparseable phone is dropped, not fatal")

	_, err = sheet.NewLead("lead_3", "acc_1", sheet.LeadInput{Email: "nope"}, now)
	var fe *sheet.FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "email", fe.Field)
}
