package authjwt_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/credential"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
)

func TestTokensLivingLongerThanADayAreRefused(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, clk := newVerifier(t, iss)
	now := clk.Now()
	// Issued at now, not when minted: a second boundary crossed in between would shorten the life.
	issued := alice
	issued.IssuedAt = now
	_, err := v.Verify(context.Background(), iss.Token(issued, jwttest.ExpiresAt(now.Add(24*time.Hour))))
	require.NoError(t, err, "exactly 24 hours is allowed")
	_, err = v.Verify(context.Background(), iss.Token(issued, jwttest.ExpiresAt(now.Add(24*time.Hour+time.Second))))
	requireInvalidToken(t, err, "token lifetime exceeds 24 hours")
	_, err = v.Verify(context.Background(), iss.Token(alice, jwttest.Claims(func(c *authjwt.Claims) { c.IssuedAt = nil })))
	requireInvalidToken(t, err, "token has no issue time (iat)")
}

func TestRevocationRefusesEarlierTokensEvenRemembered(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	v, clk := newCachingVerifier(t, iss)
	ctx := context.Background()
	old := iss.Token(authjwt.Caller{AccountID: "acc_1", IssuedAt: clk.Now().Add(-time.Minute)})
	other := iss.Token(authjwt.Caller{AccountID: "acc_2", IssuedAt: clk.Now().Add(-time.Minute)})
	for _, tok := range []string{old, other} {
		_, err := v.Verify(ctx, tok) // now remembered
		require.NoError(t, err)
	}

	nbf := clk.Now().Truncate(time.Second).Add(time.Second)
	v.Revoke("acc_1", "", nbf)
	_, err := v.Verify(ctx, old)
	requireInvalidToken(t, err, "token was revoked")
	_, err = v.Verify(ctx, other)
	require.NoError(t, err, "another account is not affected")
	_, err = v.Verify(ctx, iss.Token(authjwt.Caller{AccountID: "acc_1", IssuedAt: nbf}))
	require.NoError(t, err, "a token issued at the not-before time is valid")

	v.Revoke("acc_1", "", nbf.Add(-time.Hour))
	_, err = v.Verify(ctx, old)
	requireInvalidToken(t, err, "token was revoked") // an older revocation never loosens a newer one
}

func TestWithdrawnKeyStopsVerifyingAfterTheJWKSMaxAge(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t) // serves max-age=60
	v, clk := newCachingVerifier(t, iss)
	ctx := context.Background()
	old := iss.Token(authjwt.Caller{AccountID: "acc_1"})
	_, err := v.Verify(ctx, old)
	require.NoError(t, err)
	fetches := iss.Fetches()

	iss.Rotate()
	iss.RetireOldKeys()
	clk.Advance(59 * time.Second)
	_, err = v.Verify(ctx, old)
	require.NoError(t, err, "within the max-age the set is not fetched again")
	require.Equal(t, fetches, iss.Fetches())

	clk.Advance(2 * time.Second)
	_, err = v.Verify(ctx, old)
	requireInvalidToken(t, err, "token signing key is not known")
	require.Equal(t, fetches+1, iss.Fetches(), "no token with a new kid was needed")
}

// exchanger stands in for identity: it mints a 10-minute token with akid for every key it knows.
type exchanger struct {
	iss   *jwttest.Issuer
	now   func() time.Time
	keys  map[string]string // key -> key id
	calls atomic.Int64
	down  atomic.Bool
}

func (x *exchanger) Exchange(_ context.Context, key string) (string, error) {
	x.calls.Add(1)
	if x.down.Load() {
		return "", errors.New("connection refused")
	}
	id, ok := x.keys[key]
	if !ok {
		return "", credential.ErrAPIKeyRefused
	}
	now := x.now()
	return x.iss.Token(authjwt.Caller{AccountID: "acc_1", Email: "a@example.com", Plan: "growth", IssuedAt: now, ExpiresAt: now.Add(10 * time.Minute)},
		jwttest.Claims(func(c *authjwt.Claims) { c.KeyID = id })), nil
}

func newKeyVerifier(t *testing.T) (*authjwt.Verifier, *exchanger, string) {
	t.Helper()
	iss := jwttest.NewIssuer(t)
	v, clk := newCachingVerifier(t, iss)
	key, err := credential.NewAPIKey()
	require.NoError(t, err)
	x := &exchanger{iss: iss, now: clk.Now, keys: map[string]string{key: "key_1"}}
	v.UseKeyExchanger(x)
	return v, x, key
}

func TestAPIKeyIsExchangedOnceAndActsForItsAccount(t *testing.T) {
	t.Parallel()
	v, x, key := newKeyVerifier(t)
	ctx := context.Background()
	for range 100 {
		c, err := v.Authenticate(ctx, key)
		require.NoError(t, err)
		require.Equal(t, "acc_1", c.AccountID)
		require.Equal(t, "key_1", c.KeyID)
		require.Equal(t, "growth", c.Plan)
		require.NotEmpty(t, c.Token)
		fwd, err := v.Verify(ctx, c.Token)
		require.NoError(t, err, "the minted token is what services forward")
		require.Equal(t, "key_1", fwd.KeyID)
	}
	require.EqualValues(t, 1, x.calls.Load())
}

func TestAPIKeyRefusals(t *testing.T) {
	t.Parallel()
	v, x, key := newKeyVerifier(t)
	ctx := context.Background()

	typo := key[:len(key)-1] + string(rune(key[len(key)-1])^1)
	_, err := v.Authenticate(ctx, typo)
	requireInvalidToken(t, err, "API key is malformed")
	require.Zero(t, x.calls.Load(), "a bad checksum never reaches identity")

	unknown, err := credential.NewAPIKey()
	require.NoError(t, err)
	for range 5 {
		_, err = v.Authenticate(ctx, unknown)
		requireInvalidToken(t, err, "API key is not valid")
	}
	require.EqualValues(t, 1, x.calls.Load(), "a refused key is remembered")

	x.down.Store(true)
	_, err = v.Authenticate(ctx, key)
	requireUnavailable(t, err)
}

func TestRevokedAPIKeyIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	v, x, key := newKeyVerifier(t)
	ctx := context.Background()
	c, err := v.Authenticate(ctx, key)
	require.NoError(t, err)

	v.Revoke("acc_1", "key_1", time.Now())
	delete(x.keys, key)
	_, err = v.Authenticate(ctx, key)
	requireInvalidToken(t, err, "API key is not valid")
	_, err = v.Verify(ctx, c.Token)
	requireInvalidToken(t, err, "API key was revoked")
}

func TestMiddlewareAcceptsAPIKeysInBothHeaders(t *testing.T) {
	t.Parallel()
	v, _, key := newKeyVerifier(t)
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := authjwt.CallerFrom(r.Context())
		_, _ = w.Write([]byte(c.AccountID + " " + c.KeyID))
	}))
	for _, hdr := range []http.Header{{"Authorization": {"Bearer " + key}}, {"X-Api-Key": {key}}} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header = hdr
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.Equal(t, "acc_1 key_1", rec.Body.String())
	}
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("X-API-Key", "bza_nope")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
}

func TestHTTPExchangerAsksIdentity(t *testing.T) {
	t.Parallel()
	iss := jwttest.NewIssuer(t)
	key, err := credential.NewAPIKey()
	require.NoError(t, err)
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == authjwt.APIKeyTokenPath && r.Header.Get("X-API-Key") == key {
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "token": iss.Token(alice,
				jwttest.Claims(func(c *authjwt.Claims) { c.KeyID = "key_9" }))})
			return
		}
		if r.URL.Path == "/api/auth/jwks.json" {
			http.Redirect(w, r, iss.JWKSURL(), http.StatusTemporaryRedirect)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(idp.Close)
	cfg := iss.Config()
	cfg.JWKSURL = idp.URL + "/api/auth/jwks.json"
	v, err := authjwt.NewVerifier(cfg)
	require.NoError(t, err)
	c, err := v.Authenticate(context.Background(), key)
	require.NoError(t, err)
	require.Equal(t, "key_9", c.KeyID)
	other, err := credential.NewAPIKey()
	require.NoError(t, err)
	_, err = v.Authenticate(context.Background(), other)
	requireInvalidToken(t, err, "API key is not valid")
}

func TestFollowRevocationsAppliesStreamEntries(t *testing.T) {
	t.Parallel()
	rdb, prefix := redistest.New(t)
	stream := prefix + identityevents.AccountRevoked
	iss := jwttest.NewIssuer(t)
	v, err := authjwt.NewVerifier(iss.Config())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	issued := time.Now().Add(-time.Minute)
	early := iss.Token(authjwt.Caller{AccountID: "acc_early", IssuedAt: issued})
	late := iss.Token(authjwt.Caller{AccountID: "acc_late", IssuedAt: issued})
	for _, tok := range []string{early, late} {
		_, err := v.Verify(ctx, tok)
		require.NoError(t, err)
	}

	publish := func(account string) {
		env, err := json.Marshal(map[string]any{"type": identityevents.AccountRevoked, "data": identityevents.AccountRevokedData{
			AccountID: account, NotBefore: isotime.Of(time.Now().Truncate(time.Second).Add(time.Second)), Reason: identityevents.RevokedPasswordChanged}})
		require.NoError(t, err)
		require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []any{"envelope", string(env)}}).Err())
	}
	publish("acc_early") // before the follower starts: read back from the stream
	done := make(chan error, 1)
	go func() { done <- v.FollowRevocations(ctx, rdb, stream) }()
	require.Eventually(t, func() bool { _, err := v.Verify(ctx, early); return err != nil }, 5*time.Second, 20*time.Millisecond)

	start := time.Now()
	publish("acc_late")
	require.Eventually(t, func() bool { _, err := v.Verify(ctx, late); return err != nil }, 5*time.Second, 10*time.Millisecond)
	require.Less(t, time.Since(start), time.Second)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
}
