package session_test

import (
	"crypto/subtle"
	"encoding/base64"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/console/internal/domain/session"
)

func TestSecretRoundTripsAndDerivesItsOwnCSRFAndKey(t *testing.T) {
	t.Parallel()
	a, b := session.NewSecret(), session.NewSecret()
	parsed, err := session.ParseSecret(a.String())
	require.NoError(t, err)
	require.Equal(t, a.ID(), parsed.ID())
	require.NotEqual(t, a.ID(), b.ID())
	require.True(t, parsed.CheckCSRF(a.CSRF()))
	require.False(t, a.CheckCSRF(b.CSRF()), "another browser's token")
	require.False(t, a.CheckCSRF(""))

	sealed := a.Seal("the-api-token")
	require.NotContains(t, string(sealed), "the-api-token")
	tok, err := parsed.Open(sealed)
	require.NoError(t, err)
	require.Equal(t, "the-api-token", tok)
	_, err = b.Open(sealed)
	require.Error(t, err, "another secret cannot open it")

	for _, bad := range []string{"", "short", a.String() + "x", "!!!!"} {
		_, err := session.ParseSecret(bad)
		require.ErrorIs(t, err, session.ErrInvalid, bad)
	}
	require.False(t, session.Secret{}.CheckCSRF(session.Secret{}.CSRF()), "the zero secret has no valid token")
}

func TestChatKeepsTheNewestTurnsAndLifetimeIsBounded(t *testing.T) {
	t.Parallel()
	var s session.Session
	for i := range session.MaxTurns + 5 {
		s.AddTurn("ses_1", session.Turn{Message: string(rune('a' + i))})
	}
	require.Len(t, s.Chat, session.MaxTurns)
	require.Equal(t, string(rune('a'+5)), s.Chat[0].Message)
	require.Equal(t, "ses_1", s.ChatSession)

	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	require.Equal(t, now.Add(12*time.Hour), session.Lifetime(now, now.Add(24*time.Hour), 12*time.Hour))
	require.Equal(t, now.Add(time.Hour), session.Lifetime(now, now.Add(time.Hour), 12*time.Hour))
	require.Equal(t, now.Add(12*time.Hour), session.Lifetime(now, time.Time{}, 12*time.Hour))
}

// Each page carries the token masked afresh, so a compressed page that reflects a guess beside it
// leaks nothing of it by its size (BREACH, issue 37); every masking checks, and so does the bare
// token a page rendered before masking carries, but not a tampered one.
func TestCSRFIsMaskedAfreshOnEveryPage(t *testing.T) {
	t.Parallel()
	a := session.NewSecret()
	first, second := a.CSRF(), a.CSRF()
	require.NotEqual(t, first, second)
	require.True(t, a.CheckCSRF(first))
	require.True(t, a.CheckCSRF(second))

	masked, err := base64.RawURLEncoding.DecodeString(first)
	require.NoError(t, err)
	half := len(masked) / 2
	bare := make([]byte, half)
	subtle.XORBytes(bare, masked[:half], masked[half:])
	require.True(t, a.CheckCSRF(base64.RawURLEncoding.EncodeToString(bare)))
	masked[len(masked)-1] ^= 1
	require.False(t, a.CheckCSRF(base64.RawURLEncoding.EncodeToString(masked)))
}
