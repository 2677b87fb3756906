package pgkit

import (
	"errors"
	"slices"

	"github.com/jackc/pgx/v5/pgconn"
)

// UniqueViolation reports whether err is a unique index refusing a row (SQLSTATE 23505); given
// constraint names, only a refusal by one of them counts.
func UniqueViolation(err error, constraints ...string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" &&
		(len(constraints) == 0 || slices.Contains(constraints, pgErr.ConstraintName))
}
