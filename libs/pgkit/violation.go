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

// Retryable reports whether PostgreSQL aborted the transaction of err to let a concurrent one go
// on (SQLSTATE 40P01 deadlock detected, 40001 serialization failure): run again, it succeeds.
func Retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}
