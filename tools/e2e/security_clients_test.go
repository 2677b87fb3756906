package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Client entitlements (issue 24, items 1 and 7) through the ingress. Source addresses: 127.0.24.x.

// clientCount is how many clients the owner's GET /api/clients lists.
func clientCount(t *testing.T, c *Client, token string) int {
	t.Helper()
	return len(c.Do(t, http.MethodGet, "/api/clients", token, nil).Expect(t, http.StatusOK).JSON["clients"].([]any))
}

// chatLimit is the caller's chat allowance as pql-check reports it (nil: unlimited).
func chatLimit(t *testing.T, c *Client, token string) any {
	t.Helper()
	r := c.Do(t, http.MethodGet, "/api/pql-check?feature=chat", token, nil).Expect(t, http.StatusOK)
	return r.JSON["features"].(map[string]any)["chat"].(map[string]any)["limit"]
}

// TestClientsAreTheOwnersEntitlement: a growth owner made full_stack clients (by the API and by
// its inbound webhook) that kept unlimited use after the owner's plan went down, and a free
// owner made clients through the webhook.
func TestClientsAreTheOwnersEntitlement(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.24.1")
	freeEmail, _ := signUp(t, s, "127.0.24.1", "e2e free owner password")
	free := c.Login(t, freeEmail, "e2e free owner password")
	ownerEmail, _ := signUp(t, s, "127.0.24.2", "e2e growth owner password")
	identityCLI(t, s, "accounts", "set-plan", ownerEmail, "growth")
	oc := s.Client(t, "127.0.24.2")
	owner := oc.Login(t, ownerEmail, "e2e growth owner password")

	// The free owner's new_client goes first on the stream, the growth owner's after it.
	freeSecret := c.Do(t, http.MethodPost, "/api/ext-webhook/secret/rotate", free, nil).Expect(t, http.StatusOK).JSON["secret"].(string)
	c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]string{"event": "new_client", "businessName": "Free Probe",
		"email": uniqueEmail(t), "plan": "full_stack"}, extSecret(freeSecret)).Expect(t, http.StatusOK)
	ownerSecret := oc.Do(t, http.MethodPost, "/api/ext-webhook/secret/rotate", owner, nil).Expect(t, http.StatusOK).JSON["secret"].(string)
	inboundEmail := uniqueEmail(t)
	oc.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]string{"event": "new_client", "businessName": "Inbound Shop",
		"email": inboundEmail, "plan": "full_stack"}, extSecret(ownerSecret)).Expect(t, http.StatusOK)
	eventually(t, "the growth owner's inbound client", func() bool { return clientCount(t, oc, owner) == 1 })
	require.Zero(t, clientCount(t, c, free), "a free owner gets no client through the webhook")

	// Both clients, the API's and the webhook's, asked for full_stack and got growth.
	inv := oc.Do(t, http.MethodPost, "/api/clients", owner, map[string]string{"email": uniqueEmail(t), "businessName": "API Shop",
		"plan": "full_stack"}).Expect(t, http.StatusCreated)
	renewed := oc.Do(t, http.MethodPost, "/api/clients", owner, map[string]string{"email": inboundEmail, "businessName": "Inbound Shop"}).
		Expect(t, http.StatusCreated)
	cc := s.Client(t, "127.0.24.3")
	var clients []string
	for i, tok := range []string{inv.JSON["inviteToken"].(string), renewed.JSON["inviteToken"].(string)} {
		pw := fmt.Sprintf("e2e client password %d", i)
		a := cc.Do(t, http.MethodPost, "/api/invitations/accept", "", map[string]string{"token": tok, "password": pw}).Expect(t, http.StatusOK)
		require.Equal(t, "growth", a.JSON["plan"], "a client's plan is at most its owner's")
		clients = append(clients, cc.Login(t, a.JSON["email"].(string), pw))
	}
	for _, tok := range clients {
		require.Equal(t, 1000.0, chatLimit(t, cc, tok), "the client has growth's chat allowance, not unlimited")
	}

	// The owner's plan goes down: identity and analytics follow for every client.
	identityCLI(t, s, "accounts", "set-plan", ownerEmail, "free")
	for i, tok := range clients {
		v := cc.Do(t, http.MethodPost, "/api/auth", tok, verifyBody()).Expect(t, http.StatusOK)
		require.Equal(t, "free", v.JSON["plan"], "client %d follows its owner's downgrade", i)
		eventually(t, "the client's free allowance in analytics", func() bool { return chatLimit(t, cc, tok) == 50.0 })
	}
	oc.Do(t, http.MethodPost, "/api/clients", owner, map[string]string{"email": uniqueEmail(t), "businessName": "X"}).
		Expect(t, http.StatusForbidden)
}

// TestInvitationsAreBoundedAndNoEmailOracle: accepting an invitation of a registered email said
// 409 email_taken, for as many addresses as an owner cared to invite.
func TestInvitationsAreBoundedAndNoEmailOracle(t *testing.T) {
	s := UseStack(t)
	registered, _ := signUp(t, s, "127.0.24.4", "e2e registered password")
	ownerEmail, _ := signUp(t, s, "127.0.24.5", "e2e oracle owner password")
	identityCLI(t, s, "accounts", "set-plan", ownerEmail, "growth")
	c := s.Client(t, "127.0.24.5")
	owner := c.Login(t, ownerEmail, "e2e oracle owner password")

	cc := s.Client(t, "127.0.24.6")
	unknown := cc.Do(t, http.MethodPost, "/api/invitations/accept", "", map[string]string{
		"token": "bzi_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "password": "e2e client password"}).Expect(t, http.StatusBadRequest)
	inv := c.Do(t, http.MethodPost, "/api/clients", owner, map[string]string{"email": registered, "businessName": "Probe"}).
		Expect(t, http.StatusCreated)
	taken := cc.Do(t, http.MethodPost, "/api/invitations/accept", "", map[string]string{
		"token": inv.JSON["inviteToken"].(string), "password": "e2e client password"}).Expect(t, http.StatusBadRequest)
	require.Equal(t, unknown.JSON, taken.JSON, "a registered email is answered as an unknown invitation")

	invited := 1
	for ; invited < 25; invited++ {
		r := c.Do(t, http.MethodPost, "/api/clients", owner, map[string]string{"email": uniqueEmail(t), "businessName": "Shop"})
		if r.Status == http.StatusConflict {
			require.Equal(t, "too_many_clients", r.JSON["code"])
			break
		}
		r.Expect(t, http.StatusCreated)
	}
	require.Equal(t, 20, invited, "a growth owner invites at most 20 clients, the probe included")
}
