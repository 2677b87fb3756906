package postgres

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/leads/migrations"
)

// Rows written with random ids before 006 get the id the code now derives from account and email,
// so an inbound reply, the sheet and new_lead name an older lead alike; a shared phone stops merging.
// The migrations run as a role with only the documented grants: 006 once needed TEMPORARY.
func TestMigration006RekeysEarlierLeadsAndDropsThePhoneIdentity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.Restricted(t, pgtest.NewDatabase(t), "leads")
	pool := pgtest.Open(t, db, "leads", pgkit.Source{Name: "leads", FS: pgtest.Before(t, migrations.Source.FS, "006")})
	_, err := pool.Exec(ctx, `INSERT INTO sheet_leads (id, account_id, name, email, phone, source, created_at) VALUES
		('lead_01JD3X0000000000000000000A', 'acc_a', 'Ann', 'Ann@Acme.com', '+15124723000', 'api', now()),
		('lead_01JD3X0000000000000000000B', 'acc_b', 'Ann', 'ann@acme.com', '', 'api', now())`)
	require.NoError(t, err)

	require.NoError(t, pgkit.Migrate(ctx, pool, "leads", migrations.Source))
	got := map[string]string{}
	rows, err := pool.Query(ctx, `SELECT account_id, id FROM sheet_leads`)
	require.NoError(t, err)
	for rows.Next() {
		var account, id string
		require.NoError(t, rows.Scan(&account, &id))
		got[account] = id
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]string{"acc_a": leadsevents.LeadID("acc_a", "ann@acme.com"), "acc_b": leadsevents.LeadID("acc_b", "ann@acme.com")}, got)

	_, err = pool.Exec(ctx, `INSERT INTO sheet_leads (id, account_id, name, email, phone, source, created_at)
		VALUES ('x', 'acc_a', 'Carol', 'carol@acme.com', '+15124723000', 'api', now())`)
	require.NoError(t, err, "a second person on the same phone is a second lead")
}
