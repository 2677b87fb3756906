package qualify_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/phone"
	"github.com/bizassist/bizassist/services/leads/internal/domain/contact"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
)

func facts(email string) qualify.Facts {
	e, err := contact.ParseEmail(email)
	return qualify.Facts{Email: e, EmailErr: err}
}

func TestAssessBestLeadScoresHighWithEveryReason(t *testing.T) {
	t.Parallel()
	f := facts("ann@acmeplumbing.com")
	f.MX, f.DomainResolves, f.Listed = qualify.Yes, qualify.Yes, true
	f.PhoneGiven = true
	f.Phone, f.PhoneErr = phone.Parse("512-472-3000")
	r := qualify.Assess(f)
	require.Equal(t, 100, r.Score)
	require.True(t, r.Qualified)
	require.Equal(t, []string{"valid_email_syntax", "verified_email", "business_email", "has_website", "valid_phone", "local_business"}, r.Signals)
	for _, want := range []string{"(+5)", "(+20)", "(+10)", "(+15)", "US number"} {
		require.Contains(t, r.Reasoning, want)
	}
}

func TestAssessMalformedEmailScoresLowWithoutDNS(t *testing.T) {
	t.Parallel()
	r := qualify.Assess(facts("not-an-email"))
	require.Equal(t, 0, r.Score)
	require.False(t, r.Qualified)
	require.Empty(t, r.Signals)
	require.NotNil(t, r.Signals)
	require.Contains(t, r.Reasoning, "not a valid address")
}

func TestAssessUnknownDNSMovesNothing(t *testing.T) {
	t.Parallel()
	unknown := qualify.Assess(facts("ann@acmeplumbing.com"))
	require.Equal(t, qualify.Base+qualify.PointsSyntax+qualify.PointsBusinessDom, unknown.Score)
	require.Equal(t, 2, strings.Count(unknown.Reasoning, "unknown"))

	f := facts("ann@acmeplumbing.com")
	f.MX, f.DomainResolves = qualify.No, qualify.No
	none := qualify.Assess(f)
	require.Equal(t, unknown.Score+qualify.PointsNoMX, none.Score)
	require.NotContains(t, none.Signals, "verified_email")
}

func TestAssessMailboxKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		email  string
		signal string
		points int
	}{
		{"someone@gmail.com", "free_email", qualify.PointsFreeMail},
		{"someone@mailinator.com", "disposable_email", qualify.PointsDisposable},
		{"someone@inbox.yopmail.com", "disposable_email", qualify.PointsDisposable},
		{"info@acme.com", "role_address", qualify.PointsRole},
	}
	for _, tc := range cases {
		f := facts(tc.email)
		f.MX = qualify.Yes
		r := qualify.Assess(f)
		require.Contains(t, r.Signals, tc.signal, tc.email)
		require.Contains(t, r.Reasoning, fmt.Sprintf("(%+d)", tc.points), tc.email)
	}
}

func TestAssessPhone(t *testing.T) {
	t.Parallel()
	f := facts("ann@acme.com")
	f.PhoneGiven, f.PhoneErr = true, errors.New("bad")
	bad := qualify.Assess(f)
	f.PhoneGiven, f.PhoneErr = false, nil
	none := qualify.Assess(f)
	require.Equal(t, none.Score+qualify.PointsBadPhone, bad.Score)
	require.Contains(t, bad.Reasoning, "not a valid number")
}

func TestAssessClampsToZero(t *testing.T) {
	t.Parallel()
	f := facts("info@mailinator.com")
	f.MX = qualify.No
	f.PhoneGiven, f.PhoneErr = true, errors.New("bad")
	require.Equal(t, 0, qualify.Assess(f).Score)
}
