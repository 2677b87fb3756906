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

func TestASerializationFailureIsRetryableAndAUniqueViolationIsNot(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "shop", widgets)
	ctx := context.Background()
	_, err := pool.Exec(ctx, "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = 'serialization_failure'; END $$")
	require.True(t, pgkit.Retryable(err))
	_, err = pool.Exec(ctx, "DO $$ BEGIN RAISE EXCEPTION 'cycle' USING ERRCODE = 'deadlock_detected'; END $$")
	require.True(t, pgkit.Retryable(err))
	_, err = pool.Exec(ctx, "INSERT INTO widgets (id, name) VALUES (1, 'x'), (1, 'y')")
	require.False(t, pgkit.Retryable(err))
	require.False(t, pgkit.Retryable(nil))
}
