package authjwt_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/clocktest"
)

var alice = authjwt.Caller{AccountID: "acc_alice", Email: "alice@example.com", Plan: "growth", TokenID: "tok_1"}

func newVerifier(t *testing.T, iss *jwttest.Issuer) (*authjwt.Verifier, *clocktest.Clock) {
	t.Helper()
	clk := clocktest.New(time.Now())
	v, err := authjwt.NewVerifierAt(iss.Config(), clk.Now)
	require.NoError(t, err)
	return v, clk
}

func requireInvalidToken(t *testing.T, err error, msg string) {
	t.Helper()
	var appErr *apperr.Error
	require.True(t, errors.As(err, &appErr), "want *apperr.Error, got %v", err)
	require.Equal(t, apperr.KindUnauthenticated, appErr.Kind)
	require.Equal(t, apperr.CodeInvalidToken, appErr.Code)
	require.Equal(t, msg, appErr.Message)
}

func requireUnavailable(t *testing.T, err error) {
	t.Helper()
	require.Equal(t, apperr.KindUnavailable, apperr.KindOf(err), "got %v", err)
	require.Equal(t, authjwt.CodeAuthUnavailable, apperr.CodeOf(err))
}

func TestVerifyAcceptsIssuedToken(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, _ := newVerifier(t, iss)
	exp := time.Now().Add(24 * time.Hour).Truncate(time.Second)

	got, err := v.Verify(context.Background(), iss.Token(alice, jwttest.ExpiresAt(exp)))

	require.NoError(t, err)
	require.Equal(t, alice.AccountID, got.AccountID)
	require.Equal(t, alice.Email, got.Email)
	require.Equal(t, alice.Plan, got.Plan)
	require.Equal(t, alice.TokenID, got.TokenID)
	require.True(t, got.ExpiresAt.Equal(exp), "exp %s, want %s", got.ExpiresAt, exp)
	require.False(t, got.IssuedAt.IsZero())
}

func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	other := jwttest.NewIssuer(t)
	v, _ := newVerifier(t, iss)
	pub := iss.PublicKey()
	forged := func(header, payload string) string {
		enc := base64.RawURLEncoding.EncodeToString
		return enc([]byte(header)) + "." + enc([]byte(payload)) + "." + enc(make([]byte, 64))
	}

	cases := []struct {
		name  string
		token string
		msg   string
	}{
		{"alg none", iss.Token(alice, jwttest.SignedWith(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType)),
			"token algorithm is not allowed"},
		{"HS256 keyed with the public key", iss.Token(alice, jwttest.SignedWith(jwt.SigningMethodHS256, []byte(pub))),
			"token algorithm is not allowed"},
		{"HS256 keyed with the JWK x", iss.Token(alice, jwttest.SignedWith(jwt.SigningMethodHS256,
			[]byte(authjwt.PublicJWK(iss.KeyID(), pub).X))), "token algorithm is not allowed"},
		{"unregistered alg", forged(`{"alg":"XYZ","kid":"`+iss.KeyID()+`"}`, `{"sub":"acc_x"}`),
			"token algorithm is not allowed"},
		{"another key under our kid", other.Token(alice, jwttest.KeyID(iss.KeyID())), "token signature is invalid"},
		{"another key under its own kid", other.Token(alice, jwttest.KeyID("stranger")), "token signing key is not known"},
		{"tampered payload", tamper(t, iss.Token(alice)), "token signature is invalid"},
		{"wrong issuer", iss.Token(alice, jwttest.IssuerName("someone-else")), "token issuer is not accepted"},
		{"no issuer", iss.Token(alice, jwttest.IssuerName("")), "token has no issuer (iss)"},
		{"wrong audience", iss.Token(alice, jwttest.Audience("other-api")), "token audience is not accepted"},
		{"no audience", iss.Token(alice, jwttest.Audience()), "token has no audience (aud)"},
		{"expired beyond leeway", iss.Token(alice, jwttest.ExpiresAt(time.Now().Add(-time.Minute))), "token has expired"},
		{"no expiry", iss.Token(alice, jwttest.Claims(func(c *authjwt.Claims) { c.ExpiresAt = nil })),
			"token has no expiry (exp)"},
		{"issued in the future", iss.Token(alice, jwttest.Claims(func(c *authjwt.Claims) {
			c.IssuedAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
		})), "token is issued in the future"},
		{"not valid yet", iss.Token(alice, jwttest.Claims(func(c *authjwt.Claims) {
			c.NotBefore = jwt.NewNumericDate(time.Now().Add(time.Hour))
		})), "token is not valid yet"},
		{"no kid", iss.Token(alice, jwttest.KeyID("")), "token header has no key id (kid)"},
		{"no subject", iss.Token(authjwt.Caller{Email: "x@example.com"}), "token has no subject (sub)"},
		{"claims of the wrong type", forged(`{"alg":"EdDSA","kid":"`+iss.KeyID()+`"}`, `{"sub":7,"exp":"tomorrow"}`),
			"token is malformed"},
		{"not a JWT", "not-a-jwt", "token is malformed"},
		{"empty", "", "token is malformed"},
		{"huge", strings.Repeat("a", 9<<10), "token is too long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := v.Verify(context.Background(), tc.token)
			requireInvalidToken(t, err, tc.msg)
		})
	}
}

// tamper swaps the payload of token for one claiming another account, keeping the signature.
func tamper(t *testing.T, token string) string {
	parts := strings.Split(token, ".")
	require.Len(t, parts, 3)
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	payload = []byte(strings.Replace(string(payload), alice.AccountID, "acc_mallory", 1))
	parts[1] = base64.RawURLEncoding.EncodeToString(payload)
	return strings.Join(parts, ".")
}

func TestVerifyToleratesSkewWithinLeeway(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, _ := newVerifier(t, iss)

	_, err := v.Verify(context.Background(), iss.Token(alice, jwttest.ExpiresAt(time.Now().Add(-10*time.Second))))

	require.NoError(t, err)
}

func TestUnknownKidRefreshesKeysAtMostOncePerInterval(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, clk := newVerifier(t, iss)
	ctx := context.Background()

	_, err := v.Verify(ctx, iss.Token(alice))
	require.NoError(t, err)
	require.Equal(t, 1, iss.Fetches())

	iss.Rotate()
	rotated := iss.Token(alice)
	_, err = v.Verify(ctx, rotated)
	requireInvalidToken(t, err, "token signing key is not known")
	require.Equal(t, 1, iss.Fetches(), "a refresh within the interval must not fetch")

	clk.Advance(iss.Config().MinRefreshInterval)
	_, err = v.Verify(ctx, rotated)
	require.NoError(t, err, "the refreshed JWKS has the new key")
	require.Equal(t, 2, iss.Fetches())

	_, err = v.Verify(ctx, iss.Token(alice))
	require.NoError(t, err)
	require.Equal(t, 2, iss.Fetches(), "known kids are served from the cache")
}

func TestUnknownKidFloodCausesBoundedFetches(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, clk := newVerifier(t, iss)
	flood := func() {
		const n = 50
		errs := make(chan error, n)
		for i := range n {
			token := iss.Token(alice, jwttest.KeyID(fmt.Sprintf("forged-%d", i)))
			go func() {
				_, err := v.Verify(context.Background(), token)
				errs <- err
			}()
		}
		for range n {
			requireInvalidToken(t, <-errs, "token signing key is not known")
		}
	}

	flood()
	require.Equal(t, 1, iss.Fetches(), "concurrent misses on an empty cache share one fetch")

	clk.Advance(iss.Config().MinRefreshInterval)
	flood()
	require.Equal(t, 2, iss.Fetches(), "one more fetch per interval")
}

func TestJWKSDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("cached key still verifies", func(t *testing.T) {
		t.Parallel()
		iss := jwttest.NewIssuer(t)
		v, clk := newVerifier(t, iss)
		_, err := v.Verify(ctx, iss.Token(alice))
		require.NoError(t, err)

		iss.Stop()
		clk.Advance(time.Hour)
		_, err = v.Verify(ctx, iss.Token(alice))
		require.NoError(t, err)

		iss.Rotate()
		_, err = v.Verify(ctx, iss.Token(alice))
		requireUnavailable(t, err)
	})

	t.Run("nothing cached fails closed", func(t *testing.T) {
		t.Parallel()
		iss := jwttest.NewIssuer(t)
		v, _ := newVerifier(t, iss)
		iss.Stop()

		_, err := v.Verify(ctx, iss.Token(alice))
		requireUnavailable(t, err)
	})
}

func TestVerifyReturnsWhenCallerGivesUp(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, _ := newVerifier(t, iss)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := v.Verify(ctx, iss.Token(alice))

	require.ErrorIs(t, err, context.Canceled)
}
