package signing_test

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/identity/internal/domain/signing"
)

func key(t *testing.T, kid string, created time.Time, retired *time.Time) signing.Key {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	return signing.Key{Kid: kid, Private: priv, CreatedAt: created, RetiredAt: retired}
}

func TestActiveIsTheNewestUnretiredKey(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	retired := t0.Add(3 * time.Hour)
	ring := signing.Ring{
		key(t, "old", t0, nil),
		key(t, "new", t0.Add(time.Hour), nil),
		key(t, "newest-retired", t0.Add(2*time.Hour), &retired),
	}
	k, ok := ring.Active()
	require.True(t, ok)
	require.Equal(t, "new", k.Kid)

	_, ok = signing.Ring{}.Active()
	require.False(t, ok)
}

func TestRetiredKeysStayPublishedWhileTheirTokensLive(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	retired := t0.Add(time.Hour)
	ring := signing.Ring{key(t, "a", t0, &retired), key(t, "b", t0.Add(time.Hour), nil)}

	kids := func(ks []signing.Key) []string {
		var out []string
		for _, k := range ks {
			out = append(out, k.Kid)
		}
		return out
	}
	require.Equal(t, []string{"b", "a"}, kids(ring.Published(retired.Add(23*time.Hour))))
	require.Equal(t, []string{"b"}, kids(ring.Published(retired.Add(25*time.Hour))))
}
