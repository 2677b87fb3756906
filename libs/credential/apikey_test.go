package credential_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/credential"
)

func TestAPIKeyFormat(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 50 {
		k, err := credential.NewAPIKey()
		require.NoError(t, err)
		require.Len(t, k, credential.APIKeyLen)
		require.True(t, strings.HasPrefix(k, "bza_"))
		require.True(t, credential.IsAPIKey(k), k)
		require.False(t, seen[k])
		seen[k] = true
		// Any one changed character breaks the checksum.
		b := []byte(k)
		b[10] ^= 0x01
		require.False(t, credential.IsAPIKey(string(b)), "typo %s of %s", b, k)
	}
	for _, bad := range []string{"", "bza_", "ghp_abc", "bza_" + strings.Repeat("a", 36), "bza_" + strings.Repeat("-", 36)} {
		require.False(t, credential.IsAPIKey(bad), bad)
	}
	require.Len(t, credential.HashAPIKey("bza_x"), 64)
}
