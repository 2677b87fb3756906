package pgtest_test

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
)

func TestBeforeKeepsTheMigrationsNamedBelowTheVersion(t *testing.T) {
	t.Parallel()
	all := fstest.MapFS{
		"001_init.sql":  {Data: []byte("CREATE TABLE a ();")},
		"002_more.sql":  {Data: []byte("CREATE TABLE b ();")},
		"003_later.sql": {Data: []byte("CREATE TABLE c ();")},
		"README.md":     {Data: []byte("not a migration")},
	}
	older := pgtest.Before(t, all, "003")
	names, err := fs.Glob(older, "*")
	require.NoError(t, err)
	require.Equal(t, []string{"001_init.sql", "002_more.sql"}, names)
	data, err := fs.ReadFile(older, "002_more.sql")
	require.NoError(t, err)
	require.Equal(t, "CREATE TABLE b ();", string(data))
}
