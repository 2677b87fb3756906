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
	s, err := domain.NewSession("acc_1", time.Now())
	require.NoError(t, err)
	require.True(t, ids.Valid("ses", s.ID()))
	require.NoError(t, domain.ValidateSessionID(s.ID()))
	require.NoError(t, domain.ValidateSessionID(""))
	require.Error(t, domain.ValidateSessionID("acc_01JD3X"))
	_, err = domain.NewSession("", time.Now())
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
