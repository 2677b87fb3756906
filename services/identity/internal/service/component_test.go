package service_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx/httpxtest"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/libs/openapitest"
	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
	"github.com/bizassist/bizassist/services/identity/api"
	passwords "github.com/bizassist/bizassist/services/identity/internal/adapters/password"
	"github.com/bizassist/bizassist/services/identity/internal/adapters/throttle"
	"github.com/bizassist/bizassist/services/identity/internal/app"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
	"github.com/bizassist/bizassist/services/identity/internal/service"
)

const password = "correct horse battery staple"

// stack is identity running in-process on a real socket against real PostgreSQL and Redis.
type stack struct {
	svc      *service.Service
	base     string
	contract *openapitest.Contract
	rlPrefix string // RATELIMIT_PREFIX: the limiter's buckets are under rate:<rlPrefix>:<policy>:<key>
	db       *platformtest.DatabaseProxy
}

func newStack(t *testing.T) *stack {
	t.Helper()
	ln, base := platformtest.Listen(t)
	environ := platformtest.Env(t, service.Name, base+"/api/auth/jwks.json")
	environ["IDENTITY_ARGON2_MEMORY_KIB"] = "8192"
	environ["IDENTITY_KEY_RELOAD"] = "50ms"
	sealing := sealboxtest.Config(t)
	environ["ENCRYPTION_KEYS"], environ["ENCRYPTION_KEY_ID"] = sealing.Keys, sealing.KeyID
	db := platformtest.ProxyDatabase(t, environ)
	s := platformtest.Start(t, ln, service.New, environ)
	return &stack{svc: s, base: base, contract: openapitest.Load(t, api.OpenAPI), rlPrefix: environ["RATELIMIT_PREFIX"], db: db}
}

func (s *stack) createOwner(t *testing.T, email, plan string) *account.Account {
	t.Helper()
	a, err := s.svc.App.CreateAccount.Handle(context.Background(), app.CreateAccountCommand{Email: email, Password: password, Plan: plan})
	require.NoError(t, err)
	return a
}

// signedInOwner creates an owner with email on plan and returns its token, signed in from ip.
func (s *stack) signedInOwner(t *testing.T, ip, email, plan string) string {
	t.Helper()
	s.createOwner(t, email, plan)
	return s.login(t, ip, email)
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
}

// post sends body (a string is sent verbatim) from the client address ip (via X-Forwarded-For,
// which the stack trusts from 127.0.0.1), checks the exchange against the contract and decodes it.
func (s *stack) post(t *testing.T, ip, token string, body any) reply {
	t.Helper()
	req := openapitest.JSONRequest(t, http.MethodPost, s.base+"/api/auth", body)
	req.Header.Set("X-Forwarded-For", ip)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	x := s.contract.Do(t, req)
	return reply{status: x.Status, header: x.Header, body: x.JSON}
}

func (s *stack) login(t *testing.T, ip, email string) string {
	t.Helper()
	r := s.post(t, ip, "", map[string]string{"email": email, "password": password})
	require.Equal(t, http.StatusOK, r.status, r.body)
	return r.body["token"].(string)
}

func keys(m map[string]any) []string { return slices.Collect(maps.Keys(m)) }

func TestLoginThenVerify(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "owner@example.com", "growth")

	before := time.Now().UTC().Truncate(time.Second)
	r := s.post(t, "10.0.0.1", "", map[string]string{"email": "Owner@Example.com", "password": password})
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.ElementsMatch(t, []string{"ok", "token", "email", "plan"}, keys(r.body))
	require.Equal(t, true, r.body["ok"])
	require.Equal(t, "owner@example.com", r.body["email"])
	require.Equal(t, "growth", r.body["plan"])
	require.NotEmpty(t, r.header.Get("X-RateLimit-Remaining"))

	v := s.post(t, "10.0.0.1", r.body["token"].(string), map[string]string{"action": "verify"})
	require.Equal(t, http.StatusOK, v.status, v.body)
	require.ElementsMatch(t, []string{"ok", "valid", "email", "plan", "expiresAt"}, keys(v.body))
	require.Equal(t, true, v.body["valid"])
	exp, err := time.Parse(time.RFC3339Nano, v.body["expiresAt"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, before.Add(24*time.Hour), exp, 5*time.Second)
	require.True(t, strings.HasSuffix(v.body["expiresAt"].(string), "Z"))
}

// TestContractProperties sends every operation the requests the document makes up, valid and not.
func TestContractProperties(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.signedInOwner(t, "10.0.9.1", "owner@example.com", "growth")
	s.contract.Probe(t, openapitest.Probe{Base: s.base, Outage: s.db.Outage,
		Credentials: map[string]func(*http.Request){"bearer": func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }}})
}

func TestLoginFailuresLookTheSame(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "owner@example.com", "free")

	wrong := s.post(t, "10.0.1.1", "", map[string]string{"email": "owner@example.com", "password": "not the password"})
	unknown := s.post(t, "10.0.1.2", "", map[string]string{"email": "nobody@example.com", "password": "not the password"})
	require.Equal(t, http.StatusUnauthorized, wrong.status)
	require.Equal(t, wrong.status, unknown.status)
	require.Equal(t, wrong.body, unknown.body)
	require.Equal(t, "invalid_credentials", wrong.body["code"])
}

func TestBadRequestsNameTheProblem(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	cases := []struct {
		name   string
		body   any
		status int
		code   string
		field  string
	}{
		{"missing email", map[string]string{"password": "x"}, 400, "missing_field", "email"},
		{"missing password", map[string]string{"email": "a@example.com"}, 400, "missing_field", "password"},
		{"empty body", "", 400, "malformed_json", ""},
		{"malformed json", `{"email": "a@example.com",`, 400, "malformed_json", ""},
		{"wrong type", `{"email": 42, "password": "x"}`, 400, "invalid_type", "email"},
		{"unknown field", `{"email": "a@example.com", "password": "x", "remember": true}`, 400, "unknown_field", "remember"},
		{"bad email", map[string]string{"email": "not-an-email", "password": "x"}, 400, "invalid_field", "email"},
		{"other action", map[string]string{"action": "refresh"}, 400, "invalid_field", "action"},
		{"oversized", `{"email":"` + strings.Repeat("a", 5000) + `@example.com","password":"x"}`, 413, "body_too_large", ""},
	}
	for i, tc := range cases {
		r := s.post(t, "10.0.2."+string(rune('1'+i)), "", tc.body)
		httpxtest.RequireRefused(t, r.status, r.body, tc.status, tc.code, tc.field, tc.name)
	}
}

func TestVerifyRefusesBadTokens(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	good := s.signedInOwner(t, "10.0.3.1", "owner@example.com", "free")

	_, otherKey, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	header := strings.Split(good, ".")[0]
	forged := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{"sub": "acc_x", "iss": "bizassist-identity",
		"aud": "bizassist-api", "exp": time.Now().Add(time.Hour).Unix()})
	var hdr map[string]any
	require.NoError(t, json.Unmarshal(mustDecode(t, header), &hdr))
	forged.Header["kid"] = hdr["kid"]
	forgedToken, err := forged.SignedString(otherKey)
	require.NoError(t, err)

	acc, err := s.svc.Accounts.OwnerByEmail(context.Background(), "owner@example.com")
	require.NoError(t, err)
	expired, err := s.svc.Signer.Issue(context.Background(), acc, time.Now().Add(-25*time.Hour))
	require.NoError(t, err)

	for name, token := range map[string]string{"forged": forgedToken, "expired": expired.Value, "garbage": "abc.def.ghi"} {
		r := s.post(t, "10.0.3.2", token, map[string]string{"action": "verify"})
		require.Equal(t, http.StatusUnauthorized, r.status, name)
		require.Equal(t, false, r.body["valid"], name)
		require.Equal(t, "invalid_token", r.body["code"], name)
		require.Contains(t, r.header.Get("WWW-Authenticate"), "Bearer", name)
	}
	r := s.post(t, "10.0.3.3", "", map[string]string{"action": "verify"})
	require.Equal(t, http.StatusUnauthorized, r.status)
	require.Equal(t, "unauthenticated", r.body["code"])
	require.Equal(t, false, r.body["valid"])
}

func TestDisabledAccountsStopVerifyingAndSigningIn(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.signedInOwner(t, "10.0.4.1", "owner@example.com", "free")
	acc, err := s.svc.Accounts.OwnerByEmail(context.Background(), "owner@example.com")
	require.NoError(t, err)
	require.NoError(t, s.svc.App.Disable.Handle(context.Background(), acc.ID()))

	r := s.post(t, "10.0.4.1", token, map[string]string{"action": "verify"})
	require.Equal(t, http.StatusUnauthorized, r.status)
	r = s.post(t, "10.0.4.1", "", map[string]string{"email": "owner@example.com", "password": password})
	require.Equal(t, http.StatusUnauthorized, r.status)
	require.Equal(t, "invalid_credentials", r.body["code"])
}

func TestKeyRotationKeepsOldTokensValid(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	old := s.signedInOwner(t, "10.0.5.1", "owner@example.com", "full_stack")

	_, err := s.svc.Keys.Rotate(context.Background(), time.Now().UTC())
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		fresh := s.login(t, "10.0.5.2", "owner@example.com")
		return kidOf(t, fresh) != kidOf(t, old)
	}, 5*time.Second, 100*time.Millisecond, "new tokens use the new key")

	fresh := s.login(t, "10.0.5.3", "owner@example.com")
	for _, token := range []string{old, fresh} {
		r := s.post(t, "10.0.5.4", token, map[string]string{"action": "verify"})
		require.Equal(t, http.StatusOK, r.status, r.body)
		require.Equal(t, "full_stack", r.body["plan"])
	}
}

// signInAs posts the owner's email with password from client and returns the status.
func (s *stack) signInAs(t *testing.T, client, email, pw string) reply {
	t.Helper()
	return s.post(t, client, "", map[string]string{"email": email, "password": pw})
}

// failSignIns signs in n times as email with a wrong password from client and requires each
// failure to be answered as one (not refused by a limit).
func (s *stack) failSignIns(t *testing.T, client, email string, n int) {
	t.Helper()
	for i := range n {
		r := s.signInAs(t, client, email, "guess")
		require.Equal(t, http.StatusUnauthorized, r.status, "failure %d is answered", i+1)
	}
}

func TestFailuresFromOneAddressDoNotLockTheOwnerOut(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "victim@example.com", "free")

	s.failSignIns(t, "10.0.6.1", "victim@example.com", 5)
	for i := range 15 {
		r := s.signInAs(t, "10.0.6.1", "victim@example.com", "guess")
		require.Equal(t, http.StatusTooManyRequests, r.status, "attempt %d after five failures is refused", i+6)
		require.NotEmpty(t, r.header.Get("Retry-After"))
		require.Equal(t, "rate_limited", r.body["code"])
	}
	r := s.signInAs(t, "10.0.6.2", "victim@example.com", password)
	require.Equal(t, http.StatusOK, r.status, "the owner signs in from their own address: %v", r.body)
}

// TestOneAddressCannotSpendTheAccountWideBound: an attacker failing at the per-minute pace from
// one address (5 a minute, under both per-minute limits) spent the 50-an-hour account-wide bound
// in ten minutes, and the owner's right password from a new address was refused. The minutes are
// passed by clearing the two per-minute buckets of that address, as their refill would.
func TestOneAddressCannotSpendTheAccountWideBound(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "target@example.com", "growth")
	const attacker = "10.0.8.1"
	failures := 0
	for minute := 0; minute < 12 && failures < 59; minute++ {
		for range 5 {
			r := s.signInAs(t, attacker, "target@example.com", "guess")
			if r.status == http.StatusTooManyRequests {
				break
			}
			require.Equal(t, http.StatusUnauthorized, r.status, r.body)
			failures++
		}
		s.passMinute(t, attacker, "target@example.com")
	}
	require.Equal(t, int(throttle.LoginAddressFailures.Rate), failures, "one address fails only its own hourly bound")
	r := s.signInAs(t, "10.0.8.2", "target@example.com", password)
	require.Equal(t, http.StatusOK, r.status, "the right password from another address is accepted: %v", r.body)
}

// passMinute clears client's per-minute buckets (ratelimit.API, ratelimit.Login and
// throttle.LoginFailures for email), as a minute's refill would; every hourly bucket stays.
func (s *stack) passMinute(t *testing.T, client, email string) {
	t.Helper()
	key := func(p ratelimit.Policy, k string) string { return "rate:" + s.rlPrefix + ":" + p.Name + ":" + k }
	n, err := s.svc.Redis.Del(context.Background(), key(ratelimit.API, client), key(ratelimit.Login, client),
		key(throttle.LoginFailures, client+"|"+ratelimit.EmailKey(email))).Result()
	require.NoError(t, err)
	require.Positive(t, n, "the buckets are where the limiter keeps them")
}

func TestSuccessfulSignInsAreNotCountedAsFailures(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "owner@example.com", "free")
	s.failSignIns(t, "10.0.6.3", "owner@example.com", 4)
	for i := range 6 { // ten attempts in all: the per-address sign-in limit still allows them
		r := s.signInAs(t, "10.0.6.3", "owner@example.com", password)
		require.Equal(t, http.StatusOK, r.status, "sign-in %d: %v", i+1, r.body)
	}
}

func TestTheOwnersAddressIsNotLockedOutByADistributedAttack(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "owner@example.com", "growth")
	s.login(t, "10.0.6.4", "owner@example.com") // the owner's usual address

	// Eleven addresses, five failures each: more than the account's hourly bound of 50.
	for a := range 11 {
		for range 5 {
			r := s.signInAs(t, "10.0.7."+strconv.Itoa(10+a), "owner@example.com", "guess")
			require.Contains(t, []int{http.StatusUnauthorized, http.StatusTooManyRequests}, r.status, r.body)
		}
	}
	r := s.signInAs(t, "10.0.6.5", "owner@example.com", password)
	require.Equal(t, http.StatusTooManyRequests, r.status, "an address the owner never used is refused while the account is attacked")
	r = s.signInAs(t, "10.0.6.4", "owner@example.com", password)
	require.Equal(t, http.StatusOK, r.status, "the owner's own address still signs in: %v", r.body)
}

func TestLoginAndCreationAreRecordedInTheOutbox(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "owner@example.com", "growth")
	s.login(t, "10.0.7.1", "owner@example.com")

	counts := map[string]int{}
	rows, err := s.svc.Runtime.Pool.Query(context.Background(), `SELECT type, count(*) FROM outbox GROUP BY type`)
	require.NoError(t, err)
	for rows.Next() {
		var typ string
		var n int
		require.NoError(t, rows.Scan(&typ, &n))
		counts[typ] = n
	}
	require.NoError(t, rows.Err())
	require.Equal(t, 1, counts["account.created"])
	require.Equal(t, 1, counts["account.login"])
}

func TestJWKSPublishesTheSigningKey(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.signedInOwner(t, "10.0.8.1", "owner@example.com", "free")

	resp, err := http.Get(s.base + "/api/auth/jwks.json") //nolint:noctx // test
	require.NoError(t, err)
	defer resp.Body.Close()
	var set authjwt.JWKS
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&set))
	keys, err := set.PublicKeys()
	require.NoError(t, err)
	require.Contains(t, keys, kidOf(t, token))
	require.Contains(t, resp.Header.Get("Cache-Control"), "public")
}

func kidOf(t *testing.T, token string) string {
	t.Helper()
	var hdr map[string]any
	require.NoError(t, json.Unmarshal(mustDecode(t, strings.Split(token, ".")[0]), &hdr))
	return hdr["kid"].(string)
}

func mustDecode(t *testing.T, seg string) []byte {
	t.Helper()
	b, err := jwt.NewParser().DecodeSegment(seg)
	require.NoError(t, err)
	return b
}

func TestAPIReferenceIsServed(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	for path, want := range map[string]string{"/api/openapi.json": "application/json", "/api/openapi": "text/html"} {
		req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
		require.NoError(t, err)
		x := s.contract.Do(t, req)
		require.Equal(t, http.StatusOK, x.Status, path)
		require.Contains(t, x.Header.Get("Content-Type"), want, path)
		require.Contains(t, string(x.Body), "/api/lead-finder", "the merged document covers every service")
	}
}

func TestSignInBeyondTheHashingBudgetIsAnswered503(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "owner@example.com", "free")
	release, err := s.svc.HashBudget.Acquire(context.Background(), math.MaxUint32) // all of it
	require.NoError(t, err)

	for i, email := range []string{"owner@example.com", "nobody@example.com"} {
		r := s.signInAs(t, "10.0.9."+strconv.Itoa(1+i), email, password)
		require.Equal(t, http.StatusServiceUnavailable, r.status, email)
		require.Equal(t, "auth_busy", r.body["code"], email)
		require.Equal(t, "1", r.header.Get("Retry-After"), email)
	}
	release()
	r := s.signInAs(t, "10.0.9.1", "owner@example.com", password)
	require.Equal(t, http.StatusOK, r.status, "a busy answer counted no failure: %v", r.body)
}

func TestSignInRehashesAPasswordStoredWithOlderParameters(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	ctx := context.Background()
	hash, err := passwords.NewHasher(8192, 1, s.svc.HashBudget).Hash(ctx, password)
	require.NoError(t, err)
	old, err := account.NewOwner(ids.New("acc"), "old@example.com", hash, account.PlanFree, "", time.Now())
	require.NoError(t, err)
	require.NoError(t, s.svc.Accounts.Create(ctx, old))
	require.True(t, s.svc.Hasher.Outdated(hash))

	s.login(t, "10.0.9.3", "old@example.com")
	acc, err := s.svc.Accounts.OwnerByEmail(ctx, "old@example.com")
	require.NoError(t, err)
	require.False(t, s.svc.Hasher.Outdated(acc.PasswordHash()), "stored again with the current parameters: %s", acc.PasswordHash())
	require.Contains(t, acc.PasswordHash(), "$m=8192,t=2,p=1$")
	s.login(t, "10.0.9.3", "old@example.com") // and the new hash verifies
}

func TestSigningKeysAreNotStoredInPlaintext(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.signedInOwner(t, "10.0.10.1", "owner@example.com", "growth")

	rows, err := s.svc.Runtime.Pool.Query(context.Background(), `SELECT kid, private_key, public_key FROM signing_keys`)
	require.NoError(t, err)
	defer rows.Close()
	n := 0
	for rows.Next() {
		var (
			kid         string
			stored, pub []byte
		)
		require.NoError(t, rows.Scan(&kid, &stored, &pub))
		n++
		if len(stored) == ed25519.SeedSize {
			require.NotEqual(t, pub, []byte(ed25519.NewKeyFromSeed(stored).Public().(ed25519.PublicKey)),
				"key %s: the stored private key is the plaintext seed", kid)
		}
	}
	require.NoError(t, rows.Err())
	require.Positive(t, n)

	r := s.post(t, "10.0.10.1", token, map[string]string{"action": "verify"})
	require.Equal(t, http.StatusOK, r.status, "tokens signed with the sealed key verify: %v", r.body)
}

func TestMigrateSealsKeysStoredInPlaintextBefore(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "owner@example.com", "growth")
	ctx := context.Background()
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	// The newest unretired key signs, so this one written the old way takes over.
	_, err = s.svc.Runtime.Pool.Exec(ctx, `INSERT INTO signing_keys (kid, private_key, public_key, created_at) VALUES ('key_plain', $1, $2, now() + interval '1 minute')`,
		priv.Seed(), []byte(pub))
	require.NoError(t, err)

	require.NoError(t, s.svc.Migrate(ctx))
	var plain []byte
	var sealed string
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(ctx, `SELECT private_key, sealed_private_key FROM signing_keys WHERE kid = 'key_plain'`).Scan(&plain, &sealed))
	require.Nil(t, plain)
	require.True(t, sealbox.IsSealed(sealed))

	require.Eventually(t, func() bool {
		return kidOf(t, s.login(t, "10.0.10.2", "owner@example.com")) == "key_plain"
	}, 5*time.Second, 100*time.Millisecond, "the sealed key signs")
	token := s.login(t, "10.0.10.2", "owner@example.com")
	r := s.post(t, "10.0.10.2", token, map[string]string{"action": "verify"})
	require.Equal(t, http.StatusOK, r.status, r.body)
}

// Every /api route the service registers is in api/openapi.yaml with an operationId, every
// documented operation is registered, and each one's documented security is what it does.
func TestRoutesMatchTheContract(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	platformtest.WaitReady(t, s.base)
	s.contract.CheckRoutes(t, s.svc.Handler())
}
