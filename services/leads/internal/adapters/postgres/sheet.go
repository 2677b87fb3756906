package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// Sheet stores the accounts' leads sheets in sheet_leads.
type Sheet struct{ pool *pgxpool.Pool }

func NewSheet(pool *pgxpool.Pool) *Sheet { return &Sheet{pool: pool} }

// Append inserts the leads, skipping any whose email or phone is already on the sheet (the
// unique indexes decide, so concurrent appends cannot both add the same lead), and returns the
// added ones. It joins the transaction ctx carries.
func (s *Sheet) Append(ctx context.Context, accountID string, leads []sheet.Lead) ([]sheet.Lead, error) {
	n := len(leads)
	idsCol, names, emails, phones, businesses, sources := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	created := make([]time.Time, n)
	for i, l := range leads {
		idsCol[i], names[i], emails[i], phones[i], businesses[i], sources[i], created[i] =
			l.ID(), l.Name(), l.Email(), l.Phone(), l.BusinessName(), l.Source(), l.CreatedAt()
	}
	rows, err := pgkit.Q(ctx, s.pool).Query(ctx, `INSERT INTO sheet_leads (id, account_id, name, email, phone, business_name, source, created_at)
		SELECT id, $1, name, email, phone, business_name, source, created_at
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
			WITH ORDINALITY AS r(id, name, email, phone, business_name, source, created_at, ord)
		ORDER BY ord
		ON CONFLICT DO NOTHING
		RETURNING id`, accountID, idsCol, names, emails, phones, businesses, sources, created)
	if err != nil {
		return nil, fmt.Errorf("insert sheet leads: %w", err)
	}
	inserted, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("insert sheet leads: %w", err)
	}
	isNew := make(map[string]bool, len(inserted))
	for _, id := range inserted {
		isNew[id] = true
	}
	added := make([]sheet.Lead, 0, len(inserted))
	for _, l := range leads {
		if isNew[l.ID()] {
			added = append(added, l)
		}
	}
	return added, nil
}

const leadColumns = `SELECT id, account_id, name, email, phone, business_name, source, created_at FROM sheet_leads`

func scanLead(r pgx.CollectableRow) (sheet.Lead, error) {
	var (
		id, account, name, email, phone, business, source string
		created                                           time.Time
	)
	err := r.Scan(&id, &account, &name, &email, &phone, &business, &source, &created)
	return sheet.RebuildLead(id, account, name, email, phone, business, source, created), err
}

func (s *Sheet) List(ctx context.Context, accountID, before string, limit int) ([]sheet.Lead, error) {
	rows, err := s.pool.Query(ctx, leadColumns+` WHERE account_id = $1 AND ($2 = '' OR id < $2)
		ORDER BY id DESC LIMIT $3`, accountID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("list sheet: %w", err)
	}
	return pgx.CollectRows(rows, scanLead)
}

// Each streams the sheet row by row, so an export never holds it all in memory.
func (s *Sheet) Each(ctx context.Context, accountID string, fn func(sheet.Lead) error) error {
	rows, err := s.pool.Query(ctx, leadColumns+` WHERE account_id = $1 ORDER BY id DESC`, accountID)
	if err != nil {
		return fmt.Errorf("export sheet: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		l, err := scanLead(rows)
		if err != nil {
			return fmt.Errorf("export sheet: %w", err)
		}
		if err := fn(l); err != nil {
			return err
		}
	}
	return rows.Err()
}
