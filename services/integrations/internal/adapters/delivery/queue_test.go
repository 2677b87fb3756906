package delivery

import (
	"context"
	"log/slog"
	"testing"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
)

// riverV015Version is the last River migration River v0.15 had; its migrations 1 to 6 are the
// same SQL as today's, whitespace aside.
const riverV015Version = 6

// TestMigrateUpgradesASchemaOfAnOlderRiver: a schema left at River v0.15's migrations, with a
// delivery job queued, is brought to the newest version, and the job is still queued.
func TestMigrateUpgradesASchemaOfAnOlderRiver(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t, "integrations")
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	_, err = migrator.Migrate(ctx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{TargetVersion: riverV015Version})
	require.NoError(t, err)
	// As River v0.15 wrote it: max_attempts had no default yet.
	_, err = pool.Exec(ctx, `INSERT INTO river_job (args, kind, max_attempts, queue, state)
		VALUES ('{"deliveryId":"dlv_old"}', $1, $2, $3, 'available')`, job("").Kind(), maxAttemptsBackstop, QueueName)
	require.NoError(t, err)

	require.NoError(t, Migrate(ctx, pool))
	applied, err := migrator.ExistingVersions(ctx)
	require.NoError(t, err)
	all := migrator.AllVersions()
	require.Len(t, applied, len(all))
	require.Equal(t, all[len(all)-1].Version, applied[len(applied)-1].Version)
	var deliveryID string
	require.NoError(t, pool.QueryRow(ctx, `SELECT args->>'deliveryId' FROM river_job WHERE state = 'available'`).Scan(&deliveryID))
	require.Equal(t, "dlv_old", deliveryID)
	require.NoError(t, Migrate(ctx, pool), "migrating again does nothing")
}
