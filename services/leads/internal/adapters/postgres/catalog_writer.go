package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

// CatalogWriter loads businesses: COPY into a temporary table, then one upsert by external id.
type CatalogWriter struct{ pool *pgxpool.Pool }

func NewCatalogWriter(pool *pgxpool.Pool) *CatalogWriter { return &CatalogWriter{pool: pool} }

var stagingColumns = []string{"external_id", "name", "owner_name", "email", "email_domain", "phone", "website",
	"website_domain", "vertical", "categories", "street", "city", "state", "zip", "lat", "lng", "source",
	"gap_score", "quality", "listed_at"}

// Upsert writes bs in one transaction; a re-import updates rows in place and keeps their ids.
func (w *CatalogWriter) Upsert(ctx context.Context, bs []catalog.Business) (inserted, updated int, err error) {
	err = pgkit.InTx(ctx, w.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE staging_businesses (
			external_id text, name text, owner_name text, email text, email_domain text, phone text, website text,
			website_domain text, vertical text, categories text[], street text, city text, state text, zip text,
			lat double precision, lng double precision, source text, gap_score smallint, quality smallint,
			listed_at timestamptz) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("create staging: %w", err)
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"staging_businesses"}, stagingColumns,
			pgx.CopyFromSlice(len(bs), func(i int) ([]any, error) {
				b := bs[i]
				return []any{b.ExternalID(), b.Name(), b.Owner(), b.Email(), b.EmailDomain(), b.Phone(), b.Website(),
					b.WebsiteDomain(), b.Vertical(), b.Categories(), b.Street(), b.City(), b.State(), b.ZIP(),
					b.Lat(), b.Lng(), b.Source(), b.GapScore(), b.Quality(), b.ListedAt()}, nil
			}))
		if err != nil {
			return fmt.Errorf("copy rows: %w", err)
		}
		rows, err := tx.Query(ctx, `INSERT INTO businesses (external_id, name, owner_name, email, email_domain, phone,
				website, website_domain, vertical, categories, street, city, state, zip, lat, lng, source, gap_score,
				quality, search, listed_at)
			SELECT external_id, name, owner_name, email, email_domain, phone, website, website_domain, vertical,
				coalesce(categories, '{}'), street, city, state, zip, lat, lng, source, gap_score, quality,
				setweight(to_tsvector('english', name), 'A') ||
				setweight(to_tsvector('english', replace(vertical, '_', ' ') || ' ' || array_to_string(coalesce(categories, '{}'), ' ')), 'B'),
				listed_at
			FROM staging_businesses
			ON CONFLICT (external_id) DO UPDATE SET
				name = EXCLUDED.name, owner_name = EXCLUDED.owner_name, email = EXCLUDED.email,
				email_domain = EXCLUDED.email_domain, phone = EXCLUDED.phone, website = EXCLUDED.website,
				website_domain = EXCLUDED.website_domain, vertical = EXCLUDED.vertical,
				categories = EXCLUDED.categories, street = EXCLUDED.street, city = EXCLUDED.city,
				state = EXCLUDED.state, zip = EXCLUDED.zip, lat = EXCLUDED.lat, lng = EXCLUDED.lng,
				source = EXCLUDED.source, gap_score = EXCLUDED.gap_score, quality = EXCLUDED.quality,
				search = EXCLUDED.search, listed_at = EXCLUDED.listed_at, updated_at = now()
			RETURNING xmax = 0`)
		if err != nil {
			return fmt.Errorf("upsert businesses: %w", err)
		}
		fresh, err := pgx.CollectRows(rows, pgx.RowTo[bool])
		if err != nil {
			return fmt.Errorf("upsert businesses: %w", err)
		}
		for _, isInsert := range fresh {
			if isInsert {
				inserted++
			} else {
				updated++
			}
		}
		return nil
	})
	return inserted, updated, err
}

// Analyze refreshes the planner's statistics after a bulk load, so searches pick the indexes
// meant for them from the first query on.
func (w *CatalogWriter) Analyze(ctx context.Context) error {
	_, err := w.pool.Exec(ctx, "ANALYZE businesses")
	return err
}
