package sealbox_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
)

func TestSealOpenRoundTrip(t *testing.T) {
	t.Parallel()
	box := sealboxtest.New(t)
	sealed, err := box.Seal([]byte("whsec_top-secret"), []byte("hook_1"))
	require.NoError(t, err)
	require.True(t, sealbox.IsSealed(sealed))
	require.NotContains(t, sealed, "top-secret")
	require.False(t, box.Stale(sealed))

	got, err := box.Open(sealed, []byte("hook_1"))
	require.NoError(t, err)
	require.Equal(t, "whsec_top-secret", string(got))

	again, err := box.Seal([]byte("whsec_top-secret"), []byte("hook_1"))
	require.NoError(t, err)
	require.NotEqual(t, sealed, again, "each seal uses a fresh data key and nonce")
}

func TestOpenRefusesOtherContextAndTampering(t *testing.T) {
	t.Parallel()
	box := sealboxtest.New(t)
	sealed, err := box.Seal([]byte("secret"), []byte("row_a"))
	require.NoError(t, err)

	_, err = box.Open(sealed, []byte("row_b"))
	require.Error(t, err, "a value moved to another row must not open")

	parts := strings.Split(sealed, ".")
	body := []byte(parts[3])
	body[len(body)/2] ^= 1
	parts[3] = string(body)
	_, err = box.Open(strings.Join(parts, "."), []byte("row_a"))
	require.Error(t, err)

	_, err = box.Open("plaintext-secret", []byte("row_a"))
	require.Error(t, err)
	require.False(t, sealbox.IsSealed("plaintext-secret"))
}

func TestRotation(t *testing.T) {
	t.Parallel()
	old, err := sealbox.GenerateKey("k1")
	require.NoError(t, err)
	next, err := sealbox.GenerateKey("k2")
	require.NoError(t, err)

	before, err := sealbox.New(sealbox.Config{Keys: old, KeyID: "k1"})
	require.NoError(t, err)
	sealed, err := before.Seal([]byte("secret"), nil)
	require.NoError(t, err)

	after, err := sealbox.New(sealbox.Config{Keys: old + "," + next, KeyID: "k2"})
	require.NoError(t, err)
	require.True(t, after.Stale(sealed), "a value under the old key must be resealed")
	got, err := after.Open(sealed, nil)
	require.NoError(t, err, "the old key still opens what it sealed")
	require.Equal(t, "secret", string(got))

	resealed, err := after.Seal(got, nil)
	require.NoError(t, err)
	require.False(t, after.Stale(resealed))

	onlyNew, err := sealbox.New(sealbox.Config{Keys: next, KeyID: "k2"})
	require.NoError(t, err)
	_, err = onlyNew.Open(sealed, nil)
	require.ErrorContains(t, err, `key "k1" is not in ENCRYPTION_KEYS`)
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	good, err := sealbox.GenerateKey("k1")
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		cfg  sealbox.Config
		want string
	}{
		"empty":          {sealbox.Config{}, "ENCRYPTION_KEYS is required"},
		"no kid":         {sealbox.Config{Keys: "abc", KeyID: "k1"}, "not kid:<base64 key>"},
		"short key":      {sealbox.Config{Keys: "k1:c2hvcnQ=", KeyID: "k1"}, "exactly 32 bytes"},
		"unknown id":     {sealbox.Config{Keys: good, KeyID: "k9"}, `ENCRYPTION_KEY_ID "k9"`},
		"duplicate id":   {sealbox.Config{Keys: good + "," + good, KeyID: "k1"}, "listed twice"},
		"bad kid syntax": {sealbox.Config{Keys: "k 1:" + strings.SplitN(good, ":", 2)[1], KeyID: "k 1"}, "not kid:<base64 key>"},
	} {
		t.Run(name, func(t *testing.T) {
			err := tc.cfg.Validate()
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), strings.SplitN(good, ":", 2)[1], "key material never in errors")
		})
	}
	require.NoError(t, sealbox.Config{Keys: good, KeyID: "k1"}.Validate())
	require.NoError(t, sealbox.Config{Keys: strings.TrimRight(good, "="), KeyID: "k1"}.Validate(), "unpadded base64 is the same key")
}
