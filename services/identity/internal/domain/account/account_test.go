package account_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func TestNewOwnerNormalizesAndValidates(t *testing.T) {
	t.Parallel()
	a, err := account.NewOwner("acc_1", "  Ann@Example.COM ", "hash", account.PlanGrowth, "Ann's Bakery", now)
	require.NoError(t, err)
	require.Equal(t, "ann@example.com", a.Email())
	require.True(t, a.CanSignIn())
	require.Equal(t, account.RoleOwner, a.Role())

	for _, bad := range []string{"", "ann", "ann@", "ann@localhost", "Ann <ann@example.com>", "a b@example.com"} {
		_, err := account.NewOwner("acc_1", bad, "hash", account.PlanFree, "", now)
		require.Error(t, err, bad)
		require.Equal(t, apperr.KindInvalid, apperr.KindOf(err), bad)
	}
	_, err = account.NewOwner("acc_1", "a@example.com", "hash", account.Plan("gold"), "", now)
	require.Error(t, err)
}

func TestParsePlanAcceptsSpellingsOfFullStack(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"full_stack", "full stack", "Full-Stack"} {
		p, err := account.ParsePlan(s)
		require.NoError(t, err)
		require.Equal(t, account.PlanFullStack, p)
	}
	_, err := account.ParsePlan("enterprise")
	require.Error(t, err)
}

func TestClientsBelongToOwnersAndCannotSignIn(t *testing.T) {
	t.Parallel()
	owner, err := account.NewOwner("acc_o", "o@example.com", "hash", account.PlanGrowth, "", now)
	require.NoError(t, err)
	c, err := account.NewClient("acc_c", owner, account.ClientDetails{Email: "c@shop.com", BusinessName: "Shop"}, "inv", now)
	require.NoError(t, err)
	require.Equal(t, "acc_o", c.OwnerID())
	require.False(t, c.CanSignIn(), "an invited client signs in only after accepting")
	require.Equal(t, account.StatusInvited, c.Status())
	require.Equal(t, account.PlanFree, c.Plan())

	_, err = account.NewClient("acc_x", c, account.ClientDetails{Email: "x@shop.com", BusinessName: "X"}, "inv", now)
	require.Error(t, err, "a client cannot own clients")
	_, err = account.NewClient("acc_x", owner, account.ClientDetails{Email: "x@shop.com"}, "inv", now)
	require.Error(t, err, "businessName is required")
}

func TestAClientsPlanIsAtMostItsOwners(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ owner, asked, want account.Plan }{
		{account.PlanGrowth, account.PlanFullStack, account.PlanGrowth},
		{account.PlanGrowth, account.PlanGrowth, account.PlanGrowth},
		{account.PlanFullStack, account.PlanGrowth, account.PlanGrowth},
		{account.PlanFullStack, account.PlanFullStack, account.PlanFullStack},
		{account.PlanFree, account.PlanFullStack, account.PlanFree},
	} {
		owner, err := account.NewOwner("acc_o", "o@example.com", "hash", tc.owner, "", now)
		require.NoError(t, err)
		c, err := account.NewClient("acc_c", owner, account.ClientDetails{Email: "c@shop.com", BusinessName: "Shop", Plan: string(tc.asked)}, "inv", now)
		require.NoError(t, err)
		require.Equal(t, tc.want, c.Plan(), "%s owner asking %s", tc.owner, tc.asked)
	}
	require.Zero(t, account.MaxClients(account.PlanFree))
	require.Less(t, account.MaxClients(account.PlanGrowth), account.MaxClients(account.PlanFullStack))
}

func TestInvitationAcceptedOnceBeforeItExpires(t *testing.T) {
	t.Parallel()
	owner, err := account.NewOwner("acc_o", "o@example.com", "hash", account.PlanGrowth, "", now)
	require.NoError(t, err)
	require.True(t, owner.CanInviteClients())
	c, err := account.NewClient("acc_c", owner, account.ClientDetails{Email: "c@shop.com", BusinessName: "Shop"}, "inv", now)
	require.NoError(t, err)
	require.Equal(t, now.Add(account.InvitationLifetime), c.InviteExpiresAt())

	late := account.FromSnapshot(c.Snapshot())
	require.ErrorIs(t, late.Accept("pw", now.Add(account.InvitationLifetime)), account.ErrInvitationInvalid)

	require.NoError(t, c.Accept("pw", now))
	require.True(t, c.CanSignIn())
	require.Equal(t, account.StatusActive, c.Status())
	require.ErrorIs(t, c.Accept("pw2", now), account.ErrInvitationInvalid, "used up")
	require.Error(t, c.Reinvite("inv2", now), "an active client is not invited again")

	free, err := account.NewOwner("acc_f", "f@example.com", "hash", account.PlanFree, "", now)
	require.NoError(t, err)
	require.False(t, free.CanInviteClients())
}

func TestRevokeTokensRefusesEveryEarlierToken(t *testing.T) {
	t.Parallel()
	a, err := account.NewOwner("acc_1", "a@example.com", "hash", account.PlanFree, "", now)
	require.NoError(t, err)
	at := now.Add(300 * time.Millisecond)
	nbf := a.RevokeTokens(at)
	require.Equal(t, now.Add(time.Second), nbf, "the next whole second")
	require.True(t, a.TokenRevoked(now), "a token issued in the same second, before, is refused")
	require.Equal(t, nbf, a.TokenIssuedAt(at), "a token issued right after is dated at the not-before time")
	require.False(t, a.TokenRevoked(a.TokenIssuedAt(at)))
	require.Equal(t, nbf, a.RevokeTokens(now.Add(-time.Hour)), "never moves back")
}

func TestHealthKeepsTheLatest(t *testing.T) {
	t.Parallel()
	a, err := account.NewOwner("acc_1", "a@example.com", "hash", account.PlanFree, "", now)
	require.NoError(t, err)
	_, _, ok := a.Health()
	require.False(t, ok)
	require.True(t, a.RecordHealth(40, "at_risk", now))
	require.False(t, a.RecordHealth(10, "critical", now.Add(-time.Minute)), "an older score arriving late")
	score, tier, ok := a.Health()
	require.True(t, ok)
	require.Equal(t, 40, score)
	require.Equal(t, "at_risk", tier)
}

func TestDisableStopsSignIn(t *testing.T) {
	t.Parallel()
	a, err := account.NewOwner("acc_1", "a@example.com", "hash", account.PlanFree, "", now)
	require.NoError(t, err)
	nbf := a.Disable(now)
	require.False(t, a.CanSignIn())
	require.True(t, a.TokenRevoked(nbf.Add(-time.Second)))
	require.False(t, a.Active())
}

func TestChangePlanReportsWhetherItChanged(t *testing.T) {
	t.Parallel()
	a, err := account.NewOwner("acc_1", "a@example.com", "hash", account.PlanFree, "", now)
	require.NoError(t, err)
	changed, err := a.ChangePlan(account.PlanFree, now)
	require.NoError(t, err)
	require.False(t, changed)
	changed, err = a.ChangePlan(account.PlanGrowth, now)
	require.NoError(t, err)
	require.True(t, changed)
}

func TestSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	a, err := account.NewOwner("acc_1", "a@example.com", "hash", account.PlanGrowth, "Biz", now)
	require.NoError(t, err)
	require.Equal(t, a.Snapshot(), account.FromSnapshot(a.Snapshot()).Snapshot())
}

func TestPasswordPolicy(t *testing.T) {
	t.Parallel()
	require.Error(t, account.ValidateNewPassword("password", "short"))
	require.NoError(t, account.ValidateNewPassword("password", "long enough password"))
	long := make([]byte, account.MaxPasswordLength+1)
	for i := range long {
		long[i] = 'a'
	}
	require.Error(t, account.ValidateNewPassword("password", string(long)))
}
