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

func TestAllowanceIsAllOrNothing(t *testing.T) {
	t.Parallel()
	limit := 25
	a := sheet.RebuildAllowance(20, &limit)
	require.Equal(t, 5, a.Remaining())

	var ex *sheet.ExhaustedError
	require.ErrorAs(t, a.Consume(6), &ex)
	require.Equal(t, sheet.ExhaustedError{Remaining: 5, Requested: 6}, *ex)
	require.Equal(t, 20, a.Used(), "a refused batch spends nothing")

	require.NoError(t, a.Consume(5))
	require.Equal(t, 0, a.Remaining())
	require.Error(t, a.Consume(1))
}

func TestUnlimitedAllowance(t *testing.T) {
	t.Parallel()
	a := sheet.RebuildAllowance(1000, nil)
	require.NoError(t, a.Consume(25))
	require.Equal(t, sheet.Unlimited, a.Remaining())
	require.Equal(t, 1025, a.Used())
}

func TestMonthOfIsUTCCalendarMonth(t *testing.T) {
	t.Parallel()
	// 23:30 on 31 Jan in New York is already February in UTC.
	ny := time.FixedZone("EST", -5*3600)
	require.Equal(t, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), sheet.MonthOf(time.Date(2026, 1, 31, 23, 30, 0, 0, ny)))
}
