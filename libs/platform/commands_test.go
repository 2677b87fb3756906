package platform_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/platform"
)

// Not parallel: it sets the process environment.
func TestOpenPoolReadsTheDatabaseSettingsAlone(t *testing.T) {
	db := pgtest.NewDatabase(t)
	t.Setenv("DATABASE_URL", db.URL)
	t.Setenv("DATABASE_SCHEMA", "cli_verb")
	t.Setenv("JWT_JWKS_URL", "") // what serve needs besides the database is not asked for
	pool, err := platform.OpenPool(context.Background())
	require.NoError(t, err)
	defer pool.Close()
	var path string
	require.NoError(t, pool.QueryRow(context.Background(), "SHOW search_path").Scan(&path))
	require.Equal(t, "cli_verb", path)

	t.Setenv("DATABASE_SCHEMA", "Not-An-Identifier")
	_, err = platform.OpenPool(context.Background())
	require.ErrorContains(t, err, "DATABASE_SCHEMA")
}
