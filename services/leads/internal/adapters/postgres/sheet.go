package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// Sheet stores the accounts' leads sheets in sheet_leads. Listings read the replica when there is
// one within the lag bound, except for an account that just appended (read-your-writes).
type Sheet struct {
	pool  *pgxpool.Pool
	reads *pgkit.Reads
}

func NewSheet(pool *pgxpool.Pool, reads *pgkit.Reads) *Sheet { return &Sheet{pool: pool, reads: reads} }

// Append inserts the leads, skipping any whose email is already on the sheet (the unique index
// decides, so concurrent appends cannot both add the same lead), and returns the added ones. It
// joins the transaction ctx carries.
func (s *Sheet) Append(ctx context.Context, accountID string, leads []sheet.Lead) ([]sheet.Lead, error) {
	leads = firstOfEach(leads)
	n := len(leads)
	idsCol, names, emails, phones, businesses, sources, notes, extras := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	exts, raws := make([]string, n), make([]string, n)
	created := make([]time.Time, n)
	for i, l := range leads {
		x, err := json.Marshal(l.Extras())
		if err != nil {
			return nil, fmt.Errorf("encode extras: %w", err)
		}
		idsCol[i], names[i], emails[i], phones[i], businesses[i], sources[i], notes[i], extras[i], created[i] =
			l.ID(), l.Name(), l.Email(), l.Phone(), l.BusinessName(), l.Source(), l.Notes(), string(x), l.CreatedAt()
		exts[i], raws[i] = l.PhoneExtension(), l.PhoneRaw()
	}
	s.reads.Wrote(ctx, accountID)
	rows, err := pgkit.Q(ctx, s.pool).Query(ctx, `INSERT INTO sheet_leads (id, account_id, name, email, phone, business_name, source, notes, extras, created_at, phone_extension, phone_raw)
		SELECT id, $1, name, email, phone, business_name, source, notes, extras::jsonb, created_at, phone_extension, phone_raw
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::timestamptz[], $11::text[], $12::text[])
			WITH ORDINALITY AS r(id, name, email, phone, business_name, source, notes, extras, created_at, phone_extension, phone_raw, ord)
		ORDER BY ord
		ON CONFLICT DO NOTHING
		RETURNING id`, accountID, idsCol, names, emails, phones, businesses, sources, notes, extras, created, exts, raws)
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

// firstOfEach keeps the first lead of each id: one email twice in a batch is one lead.
func firstOfEach(leads []sheet.Lead) []sheet.Lead {
	seen := make(map[string]bool, len(leads))
	out := leads[:0:0]
	for _, l := range leads {
		if !seen[l.ID()] {
			seen[l.ID()] = true
			out = append(out, l)
		}
	}
	return out
}

const leadColumns = `SELECT id, account_id, name, email, phone, phone_extension, phone_raw, business_name, source, notes, extras,
	created_at, field_updated_at FROM sheet_leads`

func scanLead(r pgx.CollectableRow) (sheet.Lead, error) {
	var (
		id, account, name, email, business, source, notes string
		phone                                             sheet.StoredPhone
		extras                                            map[string]string
		created                                           time.Time
		updated                                           map[string]time.Time
	)
	err := r.Scan(&id, &account, &name, &email, &phone.E164, &phone.Extension, &phone.Raw, &business, &source, &notes, &extras, &created, &updated)
	return sheet.RebuildLead(id, account, name, email, phone, business, source, notes, extras, created, updated), err
}

// Get returns the account's lead with the id, locked until the transaction ctx carries ends.
func (s *Sheet) Get(ctx context.Context, accountID, id string) (sheet.Lead, bool, error) {
	rows, err := pgkit.Q(ctx, s.pool).Query(ctx, leadColumns+` WHERE account_id = $1 AND id = $2 FOR UPDATE`, accountID, id)
	if err != nil {
		return sheet.Lead{}, false, fmt.Errorf("get sheet lead: %w", err)
	}
	l, err := pgx.CollectExactlyOneRow(rows, scanLead)
	if errors.Is(err, pgx.ErrNoRows) {
		return sheet.Lead{}, false, nil
	}
	if err != nil {
		return sheet.Lead{}, false, fmt.Errorf("get sheet lead: %w", err)
	}
	return l, true, nil
}

// Update writes an existing lead's fields back; it joins the transaction ctx carries.
func (s *Sheet) Update(ctx context.Context, l sheet.Lead) error {
	extras, err := json.Marshal(l.Extras())
	if err != nil {
		return fmt.Errorf("encode extras: %w", err)
	}
	updated, err := json.Marshal(l.FieldUpdatedAt())
	if err != nil {
		return fmt.Errorf("encode field times: %w", err)
	}
	s.reads.Wrote(ctx, l.AccountID())
	_, err = pgkit.Q(ctx, s.pool).Exec(ctx, `UPDATE sheet_leads SET name = $3, phone = $4, phone_extension = $5, phone_raw = $6,
		business_name = $7, source = $8, notes = $9, extras = $10::jsonb, field_updated_at = $11::jsonb
		WHERE account_id = $1 AND id = $2`, l.AccountID(), l.ID(), l.Name(), l.Phone(), l.PhoneExtension(), l.PhoneRaw(),
		l.BusinessName(), l.Source(), l.Notes(), string(extras), string(updated))
	if err != nil {
		return fmt.Errorf("update sheet lead: %w", err)
	}
	return nil
}

// List pages by (created_at, id): ids are derived from emails and do not sort by time.
func (s *Sheet) List(ctx context.Context, accountID, before string, limit int) ([]sheet.Lead, error) {
	rows, err := pgkit.Q(ctx, s.reads.For(ctx, accountID)).Query(ctx, leadColumns+` WHERE account_id = $1 AND ($2 = '' OR (created_at, id) <
			(SELECT created_at, id FROM sheet_leads WHERE account_id = $1 AND id = $2))
		ORDER BY created_at DESC, id DESC LIMIT $3`, accountID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("list sheet: %w", err)
	}
	return pgx.CollectRows(rows, scanLead)
}

// Each streams the sheet row by row, so an export never holds it all in memory.
func (s *Sheet) Each(ctx context.Context, accountID string, fn func(sheet.Lead) error) error {
	rows, err := pgkit.Q(ctx, s.reads.For(ctx, accountID)).Query(ctx, leadColumns+` WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, accountID)
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
