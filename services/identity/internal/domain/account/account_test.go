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
	c, err := account.NewClient("acc_c", owner, account.ClientDetails{Email: "c@shop.com", BusinessName: "Shop"}, now)
	require.NoError(t, err)
	require.Equal(t, "acc_o", c.OwnerID())
	require.False(t, c.CanSignIn())
	require.Equal(t, account.PlanFree, c.Plan())

	_, err = account.NewClient("acc_x", c, account.ClientDetails{Email: "x@shop.com", BusinessName: "X"}, now)
	require.Error(t, err, "a client cannot own clients")
	_, err = account.NewClient("acc_x", owner, account.ClientDetails{Email: "x@shop.com"}, now)
	require.Error(t, err, "businessName is required")
}

func TestDisableStopsSignIn(t *testing.T) {
	t.Parallel()
	a, err := account.NewOwner("acc_1", "a@example.com", "hash", account.PlanFree, "", now)
	require.NoError(t, err)
	a.Disable(now)
	require.False(t, a.CanSignIn())
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
