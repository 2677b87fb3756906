package service_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/services/identity/internal/app"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// planOf is the stored plan of account id.
func (s *stack) planOf(t *testing.T, id string) account.Plan {
	t.Helper()
	a, err := s.svc.Accounts.ByID(context.Background(), id)
	require.NoError(t, err)
	return a.Plan()
}

// clientsOf is how many clients owner has.
func (s *stack) clientsOf(t *testing.T, ownerID string) int {
	t.Helper()
	n, err := s.svc.Accounts.CountClients(context.Background(), ownerID)
	require.NoError(t, err)
	return n
}

// refusedNewClients is bizassist_identity_new_client_refused_total{code}.
func refusedNewClients(t *testing.T, code string) float64 {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "bizassist_identity_new_client_refused_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "code" && l.GetValue() == code {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// TestAClientsPlanIsNeverAboveItsOwners: a growth owner made full_stack clients (by the API and
// by an inbound new_client), which kept full_stack after the owner's subscription was deleted.
func TestAClientsPlanIsNeverAboveItsOwners(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	owner := s.createOwner(t, "owner@example.com", "growth")
	token := s.login(t, "10.1.8.1", "owner@example.com")

	inv := s.call(t, http.MethodPost, "/api/clients", "10.1.8.1", token,
		map[string]string{"email": "api@shop.com", "businessName": "Shop", "plan": "full_stack"})
	require.Equal(t, http.StatusCreated, inv.status, inv.body)
	byAPI := inv.body["id"].(string)
	require.Equal(t, account.PlanGrowth, s.planOf(t, byAPI), "a client gets at most its owner's plan")

	entry := s.publish(t, "inbound.new_client", owner.ID(), map[string]string{
		"inboundId": "svc_1", "businessName": "Cafe", "email": "cafe@example.com", "plan": "full_stack"})
	s.waitConsumed(t, "inbound.new_client", entry)
	byEvent, err := s.svc.Accounts.ClientByEmail(context.Background(), owner.ID(), "cafe@example.com")
	require.NoError(t, err)
	require.Equal(t, account.PlanGrowth, byEvent.Plan(), "an inbound client gets at most its owner's plan")

	acc := s.call(t, http.MethodPost, "/api/invitations/accept", "10.1.8.2", "",
		map[string]string{"token": inv.body["inviteToken"].(string), "password": "client password 1"})
	require.Equal(t, http.StatusOK, acc.status, acc.body)
	require.Equal(t, "growth", acc.body["plan"])

	// The owner's subscription is deleted: every client follows in the same transaction.
	entry = s.publish(t, "payment.customer.subscription.deleted", owner.ID(), map[string]any{
		"type": "customer.subscription.deleted", "accountId": owner.ID()})
	s.waitConsumed(t, "payment.customer.subscription.deleted", entry)
	require.Equal(t, account.PlanFree, s.planOf(t, owner.ID()))
	require.Equal(t, account.PlanFree, s.planOf(t, byAPI), "the client follows the owner's cancellation at once")
	require.Equal(t, account.PlanFree, s.planOf(t, byEvent.ID()))
	in := s.signInAs(t, "10.1.8.3", "api@shop.com", "client password 1")
	require.Equal(t, http.StatusOK, in.status, in.body)
	require.Equal(t, "free", in.body["plan"])

	changed := map[string]string{}
	rows, err := s.svc.Runtime.Pool.Query(context.Background(), `SELECT payload->'data' FROM outbox WHERE type = $1`, identityevents.AccountPlanChanged)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var d identityevents.AccountPlanChangedData
		require.NoError(t, rows.Scan(&d))
		changed[d.AccountID] = d.Plan
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]string{owner.ID(): "free", byAPI: "free", byEvent.ID(): "free"}, changed,
		"analytics and every verifier hear of each client's new plan")
}

// TestOwnersInviteAtMostTheirPlansClients: a growth owner made any number of clients, and a
// free owner made them through the inbound webhook, silently.
func TestOwnersInviteAtMostTheirPlansClients(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	growth := s.createOwner(t, "growth@example.com", "growth")
	free := s.createOwner(t, "free@example.com", "free")
	token := s.login(t, "10.1.9.1", "growth@example.com")

	limit := account.MaxClients(account.PlanGrowth)
	for i := range limit {
		r := s.call(t, http.MethodPost, "/api/clients", "10.1.9.1", token,
			map[string]string{"email": fmt.Sprintf("c%d@shop.com", i), "businessName": "Shop"})
		require.Equal(t, http.StatusCreated, r.status, "client %d: %v", i+1, r.body)
	}
	r := s.call(t, http.MethodPost, "/api/clients", "10.1.9.1", token, map[string]string{"email": "one-more@shop.com", "businessName": "Shop"})
	require.Equal(t, http.StatusConflict, r.status, r.body)
	require.Equal(t, "too_many_clients", r.body["code"])
	again := s.call(t, http.MethodPost, "/api/clients", "10.1.9.1", token, map[string]string{"email": "c0@shop.com", "businessName": "Shop"})
	require.Equal(t, http.StatusCreated, again.status, "renewing a client's invitation adds no client: %v", again.body)

	tooMany, notPaid := refusedNewClients(t, "too_many_clients"), refusedNewClients(t, "plan_upgrade_required")
	entry := s.publish(t, "inbound.new_client", growth.ID(), map[string]string{"inboundId": "svc_2", "businessName": "X", "email": "x@shop.com"})
	s.waitConsumed(t, "inbound.new_client", entry)
	entry = s.publish(t, "inbound.new_client", free.ID(), map[string]string{"inboundId": "svc_3", "businessName": "Y", "email": "y@shop.com"})
	s.waitConsumed(t, "inbound.new_client", entry)
	require.Equal(t, limit, s.clientsOf(t, growth.ID()), "the inbound webhook keeps to the allowance")
	require.Zero(t, s.clientsOf(t, free.ID()), "a free owner has no clients, by the webhook either")
	require.GreaterOrEqual(t, refusedNewClients(t, "too_many_clients")-tooMany, 1.0, "the refusal is counted (once: the duplicate delivery is recognised)")
	require.GreaterOrEqual(t, refusedNewClients(t, "plan_upgrade_required")-notPaid, 1.0)
}

// TestConcurrentInvitationsKeepToTheAllowance: the owner's row is locked while a client is
// added, so invitations sent at once cannot overshoot the allowance.
func TestConcurrentInvitationsKeepToTheAllowance(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	owner := s.createOwner(t, "owner@example.com", "growth")
	limit := account.MaxClients(account.PlanGrowth)
	errs := make(chan error, limit+10)
	for i := range limit + 10 {
		go func() {
			_, err := s.svc.App.InviteClient.Handle(context.Background(), appInvite(owner.ID(), fmt.Sprintf("p%d@shop.com", i)))
			errs <- err
		}()
	}
	refused := 0
	for range limit + 10 {
		select {
		case err := <-errs:
			if err != nil {
				require.ErrorIs(t, err, account.ErrTooManyClients)
				refused++
			}
		case <-time.After(30 * time.Second):
			t.Fatal("invitations did not finish")
		}
	}
	require.Equal(t, 10, refused)
	require.Equal(t, limit, s.clientsOf(t, owner.ID()))
}

func appInvite(ownerID, email string) app.InviteClientCommand {
	return app.InviteClientCommand{OwnerID: ownerID, ClientDetails: account.ClientDetails{Email: email, BusinessName: "Shop"}}
}

// TestAcceptingAnInvitationDoesNotSayTheEmailIsRegistered: accepting an invitation of an email
// that signs in elsewhere answered 409 email_taken, so an owner could test any address; now it
// is refused like any dead invitation, and each address tried takes one of the owner's clients.
func TestAcceptingAnInvitationDoesNotSayTheEmailIsRegistered(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	owner := s.createOwner(t, "owner@example.com", "growth")
	s.createOwner(t, "someone@example.com", "free")
	token := s.login(t, "10.1.10.1", "owner@example.com")

	accept := func(inviteToken string) reply {
		return s.call(t, http.MethodPost, "/api/invitations/accept", "10.1.10.2", "",
			map[string]string{"token": inviteToken, "password": "client password 1"})
	}
	unknown := accept("bzi_" + strings.Repeat("A", 43))
	inv := s.call(t, http.MethodPost, "/api/clients", "10.1.10.1", token, map[string]string{"email": "someone@example.com", "businessName": "Probe"})
	require.Equal(t, http.StatusCreated, inv.status, inv.body)
	taken := accept(inv.body["inviteToken"].(string))
	require.Equal(t, unknown.status, taken.status, taken.body)
	require.Equal(t, unknown.body, taken.body, "a registered email is answered as an unknown invitation")
	require.Equal(t, 1, s.clientsOf(t, owner.ID()), "the address tried keeps its place in the owner's allowance")
}
