package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
)

// Accounts keeps the accounts this service knows (identity's projection) and the owners'
// inbound webhook secrets, remembering looked-up secrets briefly (remembered.go).
type Accounts struct {
	pool    *pgxpool.Pool
	secrets rememberedSecrets
}

func NewAccounts(pool *pgxpool.Pool) *Accounts { return &Accounts{pool: pool} }

// SaveAccount implements app.AccountProjection, in the consumer's transaction.
func (s *Accounts) SaveAccount(ctx context.Context, a app.NewAccount, secretHash []byte) error {
	return pgkit.JoinTx(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO accounts (id, email, role, owner_id) VALUES ($1, $2, $3, NULLIF($4, ''))
			ON CONFLICT (id) DO NOTHING`, a.AccountID, a.Email, a.Role, a.OwnerID)
		if err != nil || tag.RowsAffected() == 0 || secretHash == nil {
			return wrap("save account", err)
		}
		_, err = tx.Exec(ctx, `INSERT INTO webhook_secrets (account_id, secret_hash) VALUES ($1, $2)`, a.AccountID, secretHash)
		return wrap("save first webhook secret", err)
	})
}

// SecretOwner implements app.SecretStore. The inbound route looks a secret up on every request,
// so an owner found is remembered for secretsRemembered: a rotation through this process is seen
// at once, one through another replica within that time.
func (s *Accounts) SecretOwner(ctx context.Context, hash []byte) (string, []byte, error) {
	if accountID, stored, ok := s.secrets.recall(hash); ok {
		return accountID, stored, nil
	}
	var accountID string
	var stored []byte
	err := s.pool.QueryRow(ctx, `SELECT account_id, secret_hash FROM webhook_secrets WHERE secret_hash = $1`, hash).
		Scan(&accountID, &stored)
	if err != nil {
		return "", nil, wrap("look up secret", notFound(err))
	}
	s.secrets.remember(hash, accountID, stored)
	return accountID, stored, nil
}

// SetSecret implements app.SecretStore.
func (s *Accounts) SetSecret(ctx context.Context, accountID string, hash []byte) error {
	defer s.secrets.forget()
	tag, err := s.pool.Exec(ctx, `INSERT INTO webhook_secrets (account_id, secret_hash)
		SELECT id, $2 FROM accounts WHERE id = $1 AND role = 'owner'
		ON CONFLICT (account_id) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, rotated_at = now()`, accountID, hash)
	if err == nil && tag.RowsAffected() == 0 {
		return app.ErrNotFound
	}
	return wrap("set secret", err)
}

// OwnerByEmail finds an owner account by email, for the operator's CLI.
func (s *Accounts) OwnerByEmail(ctx context.Context, email string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT id FROM accounts WHERE lower(email) = lower($1) AND role = 'owner'`, email).Scan(&id)
	return id, wrap("find owner", notFound(err))
}
