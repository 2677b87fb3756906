package pgkit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
)

func TestUniqueViolationNamesTheRefusingIndex(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "shop", widgets)
	ctx := context.Background()
	_, err := pool.Exec(ctx, "INSERT INTO widgets (id, name) VALUES (1, 'x')")
	require.NoError(t, err)
	_, err = pool.Exec(ctx, "INSERT INTO widgets (id, name) VALUES (1, 'y')")
	require.True(t, pgkit.UniqueViolation(err))
	require.True(t, pgkit.UniqueViolation(err, "other", "widgets_pkey"))
	require.False(t, pgkit.UniqueViolation(err, "other"))

	_, err = pool.Exec(ctx, "INSERT INTO widgets (id, name) VALUES (2, NULL)")
	require.Error(t, err)
	require.False(t, pgkit.UniqueViolation(err), "a not-null violation is not a unique one")
	require.False(t, pgkit.UniqueViolation(errors.New("23505")))
}
