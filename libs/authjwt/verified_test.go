package authjwt_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/clocktest"
)

func newCachingVerifier(t *testing.T, iss *jwttest.Issuer) (*authjwt.Verifier, *clocktest.Clock) {
	t.Helper()
	cfg := iss.Config()
	cfg.VerifiedCacheSize, cfg.VerifiedCacheTTL = 100, 5*time.Minute
	clk := clocktest.New(time.Now())
	v, err := authjwt.NewVerifierAt(cfg, clk.Now)
	require.NoError(t, err)
	return v, clk
}

func TestRememberedTokensStillExpire(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, clk := newCachingVerifier(t, iss)
	caller := authjwt.Caller{AccountID: "acc_1", Email: "a@example.com", Plan: "growth"}
	token := iss.Token(caller, jwttest.ExpiresAt(clk.Now().Add(time.Minute)))

	for range 2 { // the second answer comes from the cache
		got, err := v.Verify(context.Background(), token)
		require.NoError(t, err)
		require.Equal(t, "acc_1", got.AccountID)
	}
	clk.Advance(2 * time.Minute)
	_, err := v.Verify(context.Background(), token)
	requireInvalidToken(t, err, "token has expired")
}

func TestRememberedTokensStopWhenTheirKeyIsWithdrawn(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, clk := newCachingVerifier(t, iss)
	old := iss.Token(authjwt.Caller{AccountID: "acc_1"})
	_, err := v.Verify(context.Background(), old)
	require.NoError(t, err)

	iss.Rotate()
	iss.RetireOldKeys()
	clk.Advance(time.Minute) // past the refresh interval
	_, err = v.Verify(context.Background(), iss.Token(authjwt.Caller{AccountID: "acc_2"}))
	require.NoError(t, err, "the new key is fetched, and the old one is gone from the set")

	_, err = v.Verify(context.Background(), old)
	requireInvalidToken(t, err, "token signing key is not known")
}

func TestOnlyTheSameBytesAreRemembered(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, _ := newCachingVerifier(t, iss)
	token := iss.Token(alice)
	_, err := v.Verify(context.Background(), token)
	require.NoError(t, err)
	forged := tamper(t, token)
	require.NotEqual(t, token, forged)
	_, err = v.Verify(context.Background(), forged)
	require.Error(t, err, "a tampered copy of a remembered token is verified afresh and refused")
}

func BenchmarkVerifyRemembered(b *testing.B) {
	iss := jwttest.NewIssuer(b)
	cfg := iss.Config()
	cfg.VerifiedCacheSize, cfg.VerifiedCacheTTL = 100, 5*time.Minute
	v, err := authjwt.NewVerifier(cfg)
	require.NoError(b, err)
	token := iss.Token(authjwt.Caller{AccountID: "acc_1"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(ctx, token); err != nil {
			b.Fatal(err)
		}
	}
}
