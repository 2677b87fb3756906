package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

func TestValidateMessage(t *testing.T) {
	t.Parallel()
	m, err := domain.ValidateMessage("  hello  ")
	require.NoError(t, err)
	require.Equal(t, "hello", m)

	for _, bad := range []string{"", "   \n\t", strings.Repeat("é", domain.MaxMessageChars+1)} {
		_, err := domain.ValidateMessage(bad)
		var e *apperr.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, "message", e.Field)
	}
	_, err = domain.ValidateMessage(strings.Repeat("é", domain.MaxMessageChars))
	require.NoError(t, err, "the limit counts characters, not bytes")
}

func TestSessionIDs(t *testing.T) {
	t.Parallel()
	s, err := domain.NewSession("acc_1", "", time.Now())
	require.NoError(t, err)
	require.True(t, ids.Valid("ses", s.ID()), "ours when the client chose none")
	require.NoError(t, domain.ValidateSessionID(s.ID()))
	require.NoError(t, domain.ValidateSessionID(""))
	chosen, err := domain.NewSession("acc_1", "crm:contact/42 – support", time.Now())
	require.NoError(t, err)
	require.Equal(t, "crm:contact/42 – support", chosen.ID(), "a client's opaque id is kept as it is")
	require.NoError(t, domain.ValidateSessionID(strings.Repeat("é", domain.MaxSessionIDChars)))
	for _, bad := range []string{strings.Repeat("x", domain.MaxSessionIDChars+1), "a\nb", "\xff"} {
		require.Error(t, domain.ValidateSessionID(bad), "%q", bad)
	}
	_, err = domain.NewSession("", "", time.Now())
	require.Error(t, err)
}

func TestTrimToBudgetKeepsTheNewestWholeExchanges(t *testing.T) {
	t.Parallel()
	h := []domain.Message{
		{Role: domain.RoleUser, Tokens: 10}, {Role: domain.RoleAssistant, Tokens: 40},
		{Role: domain.RoleUser, Tokens: 5}, {Role: domain.RoleAssistant, Tokens: 20},
	}
	require.Len(t, domain.TrimToBudget(h, 1000), 4)
	require.Equal(t, h[2:], domain.TrimToBudget(h, 60))
	require.Empty(t, domain.TrimToBudget(h, 22), "a reply is not kept without its question")
	require.Empty(t, domain.TrimToBudget(nil, 10))
}
