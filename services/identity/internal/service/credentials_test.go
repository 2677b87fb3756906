package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/contracts/analyticsevents"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/credential"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/identity/internal/domain/apikey"
)

// call sends method path from ip with an Authorization: Bearer credential (a token or an API
// key; none when empty), checked against the contract.
func (s *stack) call(t *testing.T, method, path, ip, credential string, body any, hdr ...http.Header) reply {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(raw)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-Forwarded-For", ip)
	if credential != "" {
		req.Header.Set("Authorization", "Bearer "+credential)
	}
	for _, h := range hdr {
		for k, v := range h {
			req.Header[k] = v
		}
	}
	x := s.contract.Do(t, req)
	return reply{status: x.Status, header: x.Header, body: x.JSON}
}

// revocations is the account.revoked events in the outbox, by reason.
func (s *stack) revocations(t *testing.T) []identityevents.AccountRevokedData {
	t.Helper()
	rows, err := s.svc.Runtime.Pool.Query(context.Background(), `SELECT payload->'data' FROM outbox WHERE type = $1 ORDER BY created_at`, identityevents.AccountRevoked)
	require.NoError(t, err)
	defer rows.Close()
	var out []identityevents.AccountRevokedData
	for rows.Next() {
		var d identityevents.AccountRevokedData
		require.NoError(t, rows.Scan(&d))
		out = append(out, d)
	}
	require.NoError(t, rows.Err())
	return out
}

func TestAPIKeysLifecycle(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	ann := s.createOwner(t, "ann@example.com", "growth")
	s.createOwner(t, "bob@example.com", "free")
	annToken := s.login(t, "10.1.0.1", "ann@example.com")
	bobToken := s.login(t, "10.1.0.2", "bob@example.com")

	r := s.call(t, http.MethodPost, "/api/keys", "10.1.0.1", annToken, map[string]string{"name": "zapier"})
	require.Equal(t, http.StatusCreated, r.status, r.body)
	require.ElementsMatch(t, []string{"ok", "id", "name", "key", "createdAt"}, keys(r.body))
	key, id := r.body["key"].(string), r.body["id"].(string)
	require.True(t, credential.IsAPIKey(key), key)
	require.Equal(t, "no-store", r.header.Get("Cache-Control"))

	var stored int
	require.NoError(t, s.svc.Runtime.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM api_keys WHERE key_hash = $1 AND position($2 in key_hash) = 0`, credential.HashAPIKey(key), key[4:]).Scan(&stored))
	require.Equal(t, 1, stored, "only the hash is stored")

	// The key works as Bearer and as X-API-Key, for its own account.
	v := s.call(t, http.MethodPost, "/api/auth", "10.1.0.1", key, map[string]string{"action": "verify"})
	require.Equal(t, http.StatusOK, v.status, v.body)
	require.Equal(t, "ann@example.com", v.body["email"])
	l := s.call(t, http.MethodGet, "/api/keys", "10.1.0.1", "", nil, http.Header{"X-Api-Key": {key}})
	require.Equal(t, http.StatusOK, l.status, l.body)
	list := l.body["keys"].([]any)
	require.Len(t, list, 1)
	entry := list[0].(map[string]any)
	require.Equal(t, id, entry["id"])
	require.Equal(t, key[:8], entry["prefix"])
	require.NotNil(t, entry["lastUsedAt"], "the exchange noted the use")
	require.NotContains(t, string(mustJSON(t, l.body)), key)

	// Bob cannot see or delete it.
	require.Empty(t, s.call(t, http.MethodGet, "/api/keys", "10.1.0.2", bobToken, nil).body["keys"])
	d := s.call(t, http.MethodDelete, "/api/keys/"+id, "10.1.0.2", bobToken, nil)
	require.Equal(t, http.StatusNotFound, d.status, d.body)
	require.Equal(t, "key_not_found", d.body["code"])

	d = s.call(t, http.MethodDelete, "/api/keys/"+id, "10.1.0.1", annToken, nil)
	require.Equal(t, http.StatusOK, d.status, d.body)
	require.Equal(t, []identityevents.AccountRevokedData{{AccountID: ann.ID(), KeyID: id, Reason: identityevents.RevokedKeyDeleted,
		NotBefore: s.revocations(t)[0].NotBefore}}, s.revocations(t))
	require.Eventually(t, func() bool {
		return s.call(t, http.MethodGet, "/api/keys", "10.1.0.1", key, nil).status == http.StatusUnauthorized
	}, 5*time.Second, 50*time.Millisecond, "a deleted key is refused within seconds")
	require.Equal(t, http.StatusNotFound, s.call(t, http.MethodDelete, "/api/keys/"+id, "10.1.0.1", annToken, nil).status)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestKeyExchangeMintsShortLivedTokensOfLiveKeysOnly(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.signedInOwner(t, "10.1.1.1", "ann@example.com", "growth")
	key := s.call(t, http.MethodPost, "/api/keys", "10.1.1.1", token, map[string]string{"name": "ci"}).body["key"].(string)

	x := s.call(t, http.MethodPost, authjwt.APIKeyTokenPath, "10.1.1.1", "", nil, http.Header{"X-Api-Key": {key}})
	require.Equal(t, http.StatusOK, x.status, x.body)
	c, err := s.svc.Runtime.Verifier.Verify(context.Background(), x.body["token"].(string))
	require.NoError(t, err)
	require.NotEmpty(t, c.KeyID)
	require.WithinDuration(t, time.Now().Add(10*time.Minute), c.ExpiresAt, 5*time.Second)

	unknown, err := credential.NewAPIKey()
	require.NoError(t, err)
	for _, k := range []string{unknown, "bza_garbage", ""} {
		require.Equal(t, http.StatusUnauthorized, s.call(t, http.MethodPost, authjwt.APIKeyTokenPath, "10.1.1.1", "", nil,
			http.Header{"X-Api-Key": {k}}).status, k)
	}
}

func TestSignUpSignsInOnTheFreePlan(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.createOwner(t, "taken@example.com", "growth")
	r := s.call(t, http.MethodPost, "/api/accounts", "10.1.2.1", "", map[string]string{
		"email": "New@Example.com", "password": "a long new password", "businessName": "New Biz"})
	require.Equal(t, http.StatusCreated, r.status, r.body)
	require.Equal(t, map[string]any{"ok": true, "token": r.body["token"], "email": "new@example.com", "plan": "free"}, r.body)
	require.Equal(t, http.StatusOK, s.post(t, "10.1.2.1", r.body["token"].(string), map[string]string{"action": "verify"}).status)
	require.Equal(t, http.StatusOK, s.signInAs(t, "10.1.2.1", "new@example.com", "a long new password").status)

	dup := s.call(t, http.MethodPost, "/api/accounts", "10.1.2.2", "", map[string]string{
		"email": "taken@example.com", "password": "a long new password", "businessName": "X"})
	require.Equal(t, http.StatusConflict, dup.status)
	require.Equal(t, "email_taken", dup.body["code"])
	require.Equal(t, "email already registered", dup.body["error"])

	bad := s.call(t, http.MethodPost, "/api/accounts", "10.1.2.3", "", map[string]string{"email": "x@example.com", "password": "a long new password"})
	require.Equal(t, http.StatusBadRequest, bad.status)
	require.Equal(t, "businessName", bad.body["field"])

	for i := range 6 { // 5 an hour per address; two were spent above
		r = s.call(t, http.MethodPost, "/api/accounts", "10.1.2.9", "", map[string]string{
			"email": "n" + string(rune('a'+i)) + "@example.com", "password": "a long new password", "businessName": "B"})
	}
	require.Equal(t, http.StatusTooManyRequests, r.status, r.body)
}

// A password change revokes every earlier credential: the tokens and the API keys (issue 12:
// "every earlier key/token of that account").
func TestPasswordChangeRevokesEarlierTokensAndKeys(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	acc := s.createOwner(t, "ann@example.com", "growth")
	old := s.login(t, "10.1.3.1", "ann@example.com")
	made := s.call(t, http.MethodPost, "/api/keys", "10.1.3.1", old, map[string]string{"name": "ci"}).body
	key, keyID := made["key"].(string), made["id"].(string)
	require.Equal(t, http.StatusOK, s.call(t, http.MethodGet, "/api/keys", "10.1.3.1", key, nil).status)

	wrong := s.call(t, http.MethodPost, "/api/auth/password", "10.1.3.1", old, map[string]string{"currentPassword": "not it at all", "newPassword": "a brand new password"})
	require.Equal(t, http.StatusForbidden, wrong.status, wrong.body)
	require.Equal(t, "current_password_incorrect", wrong.body["code"])
	short := s.call(t, http.MethodPost, "/api/auth/password", "10.1.3.1", old, map[string]string{"currentPassword": password, "newPassword": "short"})
	require.Equal(t, "newPassword", short.body["field"])

	ok := s.call(t, http.MethodPost, "/api/auth/password", "10.1.3.1", old, map[string]string{"currentPassword": password, "newPassword": "a brand new password"})
	require.Equal(t, http.StatusOK, ok.status, ok.body)
	require.Equal(t, map[string]any{"ok": true}, ok.body)
	revs := s.revocations(t)
	require.Len(t, revs, 2, "the account's tokens, and its key")
	require.Equal(t, acc.ID(), revs[0].AccountID)
	require.Equal(t, identityevents.RevokedPasswordChanged, revs[0].Reason)
	require.Equal(t, []string{"", keyID}, []string{revs[0].KeyID, revs[1].KeyID})

	v := s.post(t, "10.1.3.1", old, map[string]string{"action": "verify"})
	require.Equal(t, http.StatusUnauthorized, v.status, "identity refuses the old token at once")
	require.Eventually(t, func() bool {
		return s.call(t, http.MethodGet, "/api/keys", "10.1.3.1", old, nil).status == http.StatusUnauthorized
	}, 5*time.Second, 50*time.Millisecond, "and so does the auth library, through the revocation stream")

	fresh := s.signInAs(t, "10.1.3.2", "ann@example.com", "a brand new password")
	require.Equal(t, http.StatusOK, fresh.status, fresh.body)
	require.Equal(t, http.StatusOK, s.call(t, http.MethodGet, "/api/keys", "10.1.3.2", fresh.body["token"].(string), nil).status,
		"a token issued right after the change is valid")
	require.Eventually(t, func() bool {
		return s.call(t, http.MethodGet, "/api/keys", "10.1.3.2", key, nil).status == http.StatusUnauthorized
	}, 5*time.Second, 50*time.Millisecond, "the key made before the change is refused")
	require.Empty(t, s.call(t, http.MethodGet, "/api/keys", "10.1.3.2", fresh.body["token"].(string), nil).body["keys"])
}

func TestDisableRevokesTokensAndKeys(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	acc := s.createOwner(t, "ann@example.com", "growth")
	token := s.login(t, "10.1.4.1", "ann@example.com")
	key := s.call(t, http.MethodPost, "/api/keys", "10.1.4.1", token, map[string]string{"name": "ci"}).body["key"].(string)
	require.Equal(t, http.StatusOK, s.call(t, http.MethodGet, "/api/keys", "10.1.4.1", key, nil).status)

	require.NoError(t, s.svc.App.Disable.Handle(context.Background(), acc.ID()))
	require.Equal(t, identityevents.RevokedAccountDisabled, s.revocations(t)[0].Reason)
	require.Eventually(t, func() bool {
		return s.call(t, http.MethodGet, "/api/keys", "10.1.4.1", token, nil).status == http.StatusUnauthorized &&
			s.call(t, http.MethodGet, "/api/keys", "10.1.4.1", key, nil).status == http.StatusUnauthorized
	}, 5*time.Second, 50*time.Millisecond)
}

func TestInvitedClientAcceptsAndSignsIn(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	owner := s.createOwner(t, "owner@example.com", "growth")
	s.createOwner(t, "free@example.com", "free")
	token := s.login(t, "10.1.5.1", "owner@example.com")

	free := s.call(t, http.MethodPost, "/api/clients", "10.1.5.2", s.login(t, "10.1.5.2", "free@example.com"),
		map[string]string{"email": "c@shop.com", "businessName": "Shop"})
	require.Equal(t, http.StatusForbidden, free.status)
	require.Equal(t, "plan_upgrade_required", free.body["code"])

	inv := s.call(t, http.MethodPost, "/api/clients", "10.1.5.1", token, map[string]string{"email": "C@Shop.com", "businessName": "Shop", "ownerName": "Cy"})
	require.Equal(t, http.StatusCreated, inv.status, inv.body)
	require.ElementsMatch(t, []string{"ok", "id", "plan", "inviteToken", "inviteExpiresAt"}, keys(inv.body))
	require.Equal(t, "free", inv.body["plan"], "no plan asked: free")
	higher := s.call(t, http.MethodPost, "/api/clients", "10.1.5.1", token, map[string]string{"email": "big@shop.com", "businessName": "Big", "plan": "full_stack"})
	require.Equal(t, http.StatusCreated, higher.status, higher.body)
	require.Equal(t, "growth", higher.body["plan"], "a plan above the owner's is lowered to it, and the answer says so")
	again := s.call(t, http.MethodPost, "/api/clients", "10.1.5.1", token, map[string]string{"email": "c@shop.com", "businessName": "Shop"})
	require.Equal(t, http.StatusCreated, again.status, again.body)
	require.Equal(t, inv.body["id"], again.body["id"], "re-inviting renews the invitation")

	list := s.call(t, http.MethodGet, "/api/clients", "10.1.5.1", token, nil)
	require.Equal(t, http.StatusOK, list.status, list.body)
	c := list.body["clients"].([]any)[0].(map[string]any)
	require.Equal(t, map[string]any{"id": inv.body["id"], "email": "c@shop.com", "businessName": "Shop", "status": "invited",
		"lastLogin": nil, "healthScore": nil, "tier": nil}, c)

	stale := s.call(t, http.MethodPost, "/api/invitations/accept", "10.1.5.3", "", map[string]string{"token": inv.body["inviteToken"].(string), "password": "client password 1"})
	require.Equal(t, http.StatusBadRequest, stale.status, "the first invitation was replaced")
	require.Equal(t, "invitation_invalid", stale.body["code"])
	acc := s.call(t, http.MethodPost, "/api/invitations/accept", "10.1.5.3", "", map[string]string{"token": again.body["inviteToken"].(string), "password": "client password 1"})
	require.Equal(t, http.StatusOK, acc.status, acc.body)
	require.Equal(t, "c@shop.com", acc.body["email"])
	require.Equal(t, "free", acc.body["plan"])
	used := s.call(t, http.MethodPost, "/api/invitations/accept", "10.1.5.3", "", map[string]string{"token": again.body["inviteToken"].(string), "password": "client password 1"})
	require.Equal(t, http.StatusBadRequest, used.status)

	in := s.signInAs(t, "10.1.5.4", "c@shop.com", "client password 1")
	require.Equal(t, http.StatusOK, in.status, in.body)
	caller, err := s.svc.Runtime.Verifier.Verify(context.Background(), in.body["token"].(string))
	require.NoError(t, err)
	require.Equal(t, inv.body["id"], caller.AccountID, "the client acts as itself")

	// Analytics reports the client's health; the owner's list shows it with the sign-in.
	entry := s.publish(t, analyticsevents.HealthScored, owner.ID(), analyticsevents.HealthScoredData{
		AccountID: caller.AccountID, Score: 22, Tier: "critical", At: isotime.Of(time.Now())})
	s.waitConsumed(t, analyticsevents.HealthScored, entry)
	c = s.call(t, http.MethodGet, "/api/clients", "10.1.5.1", token, nil).body["clients"].([]any)[0].(map[string]any)
	require.Equal(t, "active", c["status"])
	require.NotNil(t, c["lastLogin"])
	require.EqualValues(t, 22, c["healthScore"])
	require.Equal(t, "critical", c["tier"])

	inviteOwner := s.call(t, http.MethodPost, "/api/clients", "10.1.5.1", token, map[string]string{"email": "c@shop.com", "businessName": "Shop"})
	require.Equal(t, http.StatusConflict, inviteOwner.status, "an active client is not invited again")
	require.True(t, strings.HasPrefix(again.body["inviteToken"].(string), "bzi_"))
}

// Issue 37: an API key could create another key, and deleting the parent left the child working
// on every service. Keys are for integrations; credentials are managed by people who signed in.
func TestAPIKeysCannotManageKeys(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	token := s.signedInOwner(t, "10.1.7.1", "ann@example.com", "growth")
	created := s.call(t, http.MethodPost, "/api/keys", "10.1.7.1", token, map[string]string{"name": "zapier"})
	require.Equal(t, http.StatusCreated, created.status, created.body)
	key, id := created.body["key"].(string), created.body["id"].(string)

	for _, viaHeader := range []bool{false, true} {
		credential, hdr := key, []http.Header(nil)
		if viaHeader {
			credential, hdr = "", []http.Header{{"X-Api-Key": {key}}}
		}
		child := s.call(t, http.MethodPost, "/api/keys", "10.1.7.1", credential, map[string]string{"name": "child"}, hdr...)
		require.Equal(t, http.StatusForbidden, child.status, child.body)
		require.Equal(t, "api_key_not_allowed", child.body["code"])
		del := s.call(t, http.MethodDelete, "/api/keys/"+id, "10.1.7.1", credential, nil, hdr...)
		require.Equal(t, http.StatusForbidden, del.status, del.body)
		require.Equal(t, "api_key_not_allowed", del.body["code"])
	}
	list := s.call(t, http.MethodGet, "/api/keys", "10.1.7.1", key, nil)
	require.Equal(t, http.StatusOK, list.status, "a key still reads the key list")
	require.Len(t, list.body["keys"], 1, "the key made no key")
	require.Equal(t, http.StatusOK, s.call(t, http.MethodDelete, "/api/keys/"+id, "10.1.7.1", token, nil).status)
}

// The 20-key limit is counted under a lock of the account: creations at once keep to it.
func TestConcurrentKeyCreationsKeepToTheLimit(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	ann := s.createOwner(t, "ann@example.com", "growth")
	errs := make(chan error, apikey.MaxPerAccount+10)
	for i := range apikey.MaxPerAccount + 10 {
		go func() {
			_, _, err := s.svc.App.CreateKey.Handle(context.Background(), ann.ID(), fmt.Sprintf("k%d", i))
			errs <- err
		}()
	}
	refused := 0
	for range apikey.MaxPerAccount + 10 {
		if err := <-errs; err != nil {
			require.ErrorIs(t, err, apikey.ErrTooMany)
			refused++
		}
	}
	require.Equal(t, 10, refused)
	keys, err := s.svc.App.ListKeys.Handle(context.Background(), ann.ID())
	require.NoError(t, err)
	require.Len(t, keys, apikey.MaxPerAccount)
}
