package e2e

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Credentials (issue 12): API keys, revocation, sign-up, invitations. Source addresses: 127.0.7.x.

// revocationBound is how soon every service must refuse a revoked credential.
const revocationBound = 5 * time.Second

// signUp registers a fresh free owner from ip and returns its email and token.
func signUp(t *testing.T, s *Stack, ip, password string) (string, string) {
	t.Helper()
	email := uniqueEmail(t)
	r := s.Client(t, ip).Do(t, http.MethodPost, "/api/accounts", "", map[string]string{
		"email": email, "password": password, "businessName": "E2E Credentials"}).Expect(t, http.StatusCreated)
	require.Equal(t, map[string]any{"ok": true, "token": r.JSON["token"], "email": email, "plan": "free"}, r.JSON)
	return email, r.JSON["token"].(string)
}

// probe is one authenticated route of one service, called from its own source address so that
// polling it cannot run into the per-address limit.
type probe struct {
	name, method, path string
	body               any
	ok                 []int
}

// serviceProbes are routes of leads, analytics, the assistant, integrations and identity.
func serviceProbes() []probe {
	return []probe{
		{"leads lead-finder", http.MethodPost, "/api/lead-finder", map[string]any{"industry": "plumbing", "location": "Austin, TX", "limit": 1}, []int{http.StatusOK}},
		{"analytics pql-check", http.MethodGet, "/api/pql-check", nil, []int{http.StatusOK}},
		{"assistant chat", http.MethodPost, "/api/chat", map[string]string{"message": "How many leads do I have?"}, []int{http.StatusOK}},
		{"integrations subscribe", http.MethodPost, "/api/ext-webhook/subscribe", map[string]string{"hookUrl": "https://example.com/e2e-credentials", "event": "new_lead"}, []int{http.StatusCreated, http.StatusOK}},
		{"identity keys", http.MethodGet, "/api/keys", nil, []int{http.StatusOK}},
	}
}

// as returns the headers that present credential: as a bearer token, or as X-API-Key.
func as(credential string, apiKeyHeader bool) (string, []http.Header) {
	if apiKeyHeader {
		return "", []http.Header{{"X-Api-Key": {credential}}}
	}
	return credential, nil
}

// requireRefusedEverywhere polls every probe until each answers 401 and fails unless all did
// within the bound after since.
func requireRefusedEverywhere(t *testing.T, s *Stack, credential string, apiKeyHeader bool, firstIP int, since time.Time) {
	t.Helper()
	probes := serviceProbes()
	refused := make([]bool, len(probes))
	left := len(probes)
	within(time.Until(since.Add(revocationBound+2*time.Second)), 250*time.Millisecond, func() bool {
		for i, p := range probes {
			if refused[i] {
				continue
			}
			tok, hdr := as(credential, apiKeyHeader)
			r := s.Client(t, ipOf(firstIP+i)).Do(t, p.method, p.path, tok, p.body, hdr...)
			if r.Status == http.StatusUnauthorized {
				refused[i], left = true, left-1
				require.Less(t, time.Since(since), revocationBound, "%s refused only after %s", p.name, time.Since(since))
			}
		}
		return left == 0
	})
	for i, p := range probes {
		require.True(t, refused[i], "%s still accepts the revoked credential after %s", p.name, revocationBound)
	}
}

func ipOf(n int) string { return "127.0.7." + strconv.Itoa(n) }

func TestAPIKeyWorksOnEveryServiceAndDiesWithinSeconds(t *testing.T) {
	s := UseStack(t)
	_, token := signUp(t, s, "127.0.7.1", "e2e keys password")
	c := s.Client(t, "127.0.7.1")

	created := c.Do(t, http.MethodPost, "/api/keys", token, map[string]string{"name": "e2e integration"}).Expect(t, http.StatusCreated)
	key, id := created.JSON["key"].(string), created.JSON["id"].(string)
	require.Regexp(t, `^bza_[0-9A-Za-z]{36}$`, key)

	for i, p := range serviceProbes() {
		for _, header := range []bool{false, true} {
			tok, hdr := as(key, header)
			r := s.Client(t, ipOf(20+i)).Do(t, p.method, p.path, tok, p.body, hdr...)
			require.Contains(t, p.ok, r.Status, "%s with the key (X-API-Key %v): %s", p.name, header, r.Raw)
		}
	}
	list := c.Do(t, http.MethodGet, "/api/keys", token, nil).Expect(t, http.StatusOK)
	require.NotContains(t, string(list.Raw), key, "lists never show the key")
	require.Contains(t, string(list.Raw), key[:8])

	// Another account cannot delete it.
	other := s.Token(t, s.Get(t, "DEMO_FREE_EMAIL"))
	c.Do(t, http.MethodDelete, "/api/keys/"+id, other, nil).Expect(t, http.StatusNotFound)

	c.Do(t, http.MethodDelete, "/api/keys/"+id, token, nil).Expect(t, http.StatusOK)
	deleted := time.Now()
	requireRefusedEverywhere(t, s, key, false, 30, deleted)
	requireRefusedEverywhere(t, s, key, true, 40, deleted)

	logs := s.serviceLogs(t)
	require.NotEmpty(t, logs)
	for process, raw := range logs {
		require.False(t, bytes.Contains(raw, []byte(key)), "%s's log contains the API key", process)
	}
}

func TestPasswordChangeRefusesTheOldTokenEverywhere(t *testing.T) {
	s := UseStack(t)
	email, token := signUp(t, s, "127.0.7.2", "e2e first password")
	for i, p := range serviceProbes() {
		r := s.Client(t, ipOf(50+i)).Do(t, p.method, p.path, token, p.body)
		require.Contains(t, p.ok, r.Status, "%s: %s", p.name, r.Raw)
	}
	c := s.Client(t, "127.0.7.2")
	c.Do(t, http.MethodPost, "/api/auth/password", token, map[string]string{
		"currentPassword": "e2e first password", "newPassword": "e2e second password"}).Expect(t, http.StatusOK)
	requireRefusedEverywhere(t, s, token, false, 60, time.Now())

	fresh := c.Login(t, email, "e2e second password")
	c.Do(t, http.MethodGet, "/api/pql-check", fresh, nil).Expect(t, http.StatusOK)
}

// identityCLI runs identity's own command where the install runs it.
func identityCLI(t *testing.T, s *Stack, args ...string) string {
	t.Helper()
	return s.serviceCommand(t, "identity", args...)
}

func TestDisabledAccountIsRefusedEverywhere(t *testing.T) {
	s := UseStack(t)
	email, token := signUp(t, s, "127.0.7.3", "e2e disable password")
	s.Client(t, "127.0.7.3").Do(t, http.MethodGet, "/api/pql-check", token, nil).Expect(t, http.StatusOK)
	require.Equal(t, email+" disabled\n", identityCLI(t, s, "accounts", "disable", email))
	requireRefusedEverywhere(t, s, token, false, 70, time.Now())
}

func TestSignUpThenSignInHasTheFreePlansLimits(t *testing.T) {
	s := UseStack(t)
	email, _ := signUp(t, s, "127.0.7.4", "e2e signup password")
	c := s.Client(t, "127.0.7.4")
	token := c.Login(t, email, "e2e signup password")
	r := c.Do(t, http.MethodGet, "/api/pql-check", token, nil).Expect(t, http.StatusOK)
	features := r.JSON["features"].(map[string]any)
	limits := map[string]any{}
	for name, f := range features {
		limits[name] = f.(map[string]any)["limit"]
	}
	require.Equal(t, map[string]any{"chat": 50.0, "lead_scoring": 25.0, "lead_finder": 20.0}, limits)

	dup := c.Do(t, http.MethodPost, "/api/accounts", "", map[string]string{"email": email, "password": "another password", "businessName": "X"})
	dup.Expect(t, http.StatusConflict)
	require.Equal(t, "email already registered", dup.JSON["error"])
}

// client is one row of GET /api/clients, if the owner has it.
func clientRow(t *testing.T, c *Client, token, id string) map[string]any {
	t.Helper()
	r := c.Do(t, http.MethodGet, "/api/clients", token, nil).Expect(t, http.StatusOK)
	for _, row := range r.JSON["clients"].([]any) {
		if m := row.(map[string]any); m["id"] == id {
			return m
		}
	}
	return nil
}

func TestInvitedClientActsForItselfAndAQuietOneAlertsOnce(t *testing.T) {
	s := UseStack(t)
	ownerEmail, _ := signUp(t, s, "127.0.7.5", "e2e owner password")
	identityCLI(t, s, "accounts", "set-plan", ownerEmail, "growth")
	c := s.Client(t, "127.0.7.5")
	owner := c.Login(t, ownerEmail, "e2e owner password")

	rc := newHookReceiver(t, s)
	sub := c.Do(t, http.MethodPost, "/api/ext-webhook/subscribe", owner,
		map[string]string{"hookUrl": rc.srv.URL + "/critical", "event": "health_score.critical"}).Expect(t, http.StatusCreated)
	rc.trust(t, sub.JSON["secret"].(string))

	// An active client: invited, accepted, signed in, using the product.
	activeEmail := uniqueEmail(t)
	inv := c.Do(t, http.MethodPost, "/api/clients", owner, map[string]string{"email": activeEmail, "businessName": "Active Shop"}).
		Expect(t, http.StatusCreated)
	activeID := inv.JSON["id"].(string)
	cc := s.Client(t, "127.0.7.6")
	accepted := cc.Do(t, http.MethodPost, "/api/invitations/accept", "", map[string]string{
		"token": inv.JSON["inviteToken"].(string), "password": "e2e client password"}).Expect(t, http.StatusOK)
	require.Equal(t, activeEmail, accepted.JSON["email"])
	clientToken := cc.Login(t, activeEmail, "e2e client password")
	for _, feature := range []string{"lead_finder", "chat", "lead_scoring", "audit_tool"} {
		cc.Do(t, http.MethodPost, "/api/log-usage", clientToken, map[string]string{"feature": feature}).Expect(t, http.StatusOK)
	}

	// A quiet client: invited, never active.
	quietEmail := uniqueEmail(t)
	quietID := c.Do(t, http.MethodPost, "/api/clients", owner, map[string]string{"email": quietEmail, "businessName": "Quiet Shop"}).
		Expect(t, http.StatusCreated).JSON["id"].(string)

	var active, quiet map[string]any
	eventually(t, "both clients scored in the owner's list", func() bool {
		active, quiet = clientRow(t, c, owner, activeID), clientRow(t, c, owner, quietID)
		return active != nil && quiet != nil && active["healthScore"] != nil && quiet["healthScore"] != nil
	})
	require.Equal(t, "active", active["status"])
	require.NotNil(t, active["lastLogin"])
	require.Equal(t, "invited", quiet["status"])
	require.Nil(t, quiet["lastLogin"])
	require.Equal(t, "critical", quiet["tier"])
	require.Greater(t, active["healthScore"].(float64), quiet["healthScore"].(float64), "the client's own activity raises its score")

	churn := c.Do(t, http.MethodGet, "/api/churn-predict?threshold=0&limit=50", owner, nil).Expect(t, http.StatusOK)
	var listed map[string]any
	for _, row := range churn.JSON["clients"].([]any) {
		if m := row.(map[string]any); m["email"] == activeEmail {
			listed = m
		}
	}
	require.NotNil(t, listed, "churn-predict lists the active client: %s", churn.Raw)
	require.NotNil(t, listed["lastLogin"])

	eventually(t, "health_score.critical for the quiet client", func() bool {
		_, _, ok := rc.find("email", quietEmail)
		return ok
	})
	// An alert that does not come can only be seen over time: nothing signals "would have fired".
	// 8 s is past the next dirty-account recompute (5 s) and the delivery of what it raised.
	time.Sleep(8 * time.Second)
	rc.mu.Lock()
	n := 0
	for _, b := range rc.got {
		if b["email"] == quietEmail {
			n++
			require.Equal(t, "health_score.critical", b["event"])
		}
	}
	rc.mu.Unlock()
	require.Equal(t, 1, n, "health_score.critical is delivered once")
}
