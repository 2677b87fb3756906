package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

// CatalogWriter loads businesses with one set-based upsert per chunk, fed column-wise through
// unnest so that it needs no privilege beyond the leads schema (no temporary tables).
type CatalogWriter struct{ pool *pgxpool.Pool }

func NewCatalogWriter(pool *pgxpool.Pool) *CatalogWriter { return &CatalogWriter{pool: pool} }

// categorySep joins a row's categories into one array element; it cannot occur in a category.
const categorySep = "\x1f"

// Upsert writes bs in one transaction; a re-import updates rows in place and keeps their ids. A
// row whose fields are all unchanged is not rewritten: rewriting it would cost a new row version
// and an entry in each of the table's indexes for nothing, and a full catalog re-imported daily
// is mostly such rows.
func (w *CatalogWriter) Upsert(ctx context.Context, bs []catalog.Business) (inserted, updated int, err error) {
	n := len(bs)
	var (
		extIDs, names, owners, emails, emailDomains, phones = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		websites, webDomains, verticals, categories         = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		streets, cities, states, zips, sources              = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		lats, lngs                                          = make([]*float64, n), make([]*float64, n)
		gaps, qualities                                     = make([]int32, n), make([]int32, n)
		listed                                              = make([]time.Time, n)
	)
	for i, b := range bs {
		extIDs[i], names[i], owners[i], emails[i], emailDomains[i], phones[i] = b.ExternalID(), b.Name(), b.Owner(), b.Email(), b.EmailDomain(), b.Phone()
		websites[i], webDomains[i], verticals[i], categories[i] = b.Website(), b.WebsiteDomain(), b.Vertical(), strings.Join(b.Categories(), categorySep)
		streets[i], cities[i], states[i], zips[i], sources[i] = b.Street(), b.City(), b.State(), b.ZIP(), b.Source()
		lats[i], lngs[i], gaps[i], qualities[i], listed[i] = b.Lat(), b.Lng(), int32(b.GapScore()), int32(b.Quality()), b.ListedAt()
	}
	err = pgkit.InTx(ctx, w.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `INSERT INTO businesses (external_id, name, owner_name, email, email_domain, phone,
				website, website_domain, vertical, categories, street, city, state, zip, lat, lng, source, gap_score,
				quality, search, listed_at)
			SELECT external_id, name, owner_name, email, email_domain, phone, website, website_domain, vertical,
				cats, street, city, state, zip, lat, lng, source, gap_score, quality,
				setweight(to_tsvector('english', name), 'A') ||
				setweight(to_tsvector('english', replace(vertical, '_', ' ') || ' ' || array_to_string(cats, ' ')), 'B'),
				listed_at
			FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
					$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
					$15::float8[], $16::float8[], $17::text[], $18::int[], $19::int[], $20::timestamptz[])
				AS r(external_id, name, owner_name, email, email_domain, phone, website, website_domain, vertical,
					cat_list, street, city, state, zip, lat, lng, source, gap_score, quality, listed_at),
				LATERAL (SELECT CASE WHEN cat_list = '' THEN '{}'::text[] ELSE string_to_array(cat_list, $21) END AS cats) c
			ON CONFLICT (external_id) DO UPDATE SET
				name = EXCLUDED.name, owner_name = EXCLUDED.owner_name, email = EXCLUDED.email,
				email_domain = EXCLUDED.email_domain, phone = EXCLUDED.phone, website = EXCLUDED.website,
				website_domain = EXCLUDED.website_domain, vertical = EXCLUDED.vertical,
				categories = EXCLUDED.categories, street = EXCLUDED.street, city = EXCLUDED.city,
				state = EXCLUDED.state, zip = EXCLUDED.zip, lat = EXCLUDED.lat, lng = EXCLUDED.lng,
				source = EXCLUDED.source, gap_score = EXCLUDED.gap_score, quality = EXCLUDED.quality,
				search = EXCLUDED.search, listed_at = EXCLUDED.listed_at, updated_at = now()
			WHERE (businesses.name, businesses.owner_name, businesses.email, businesses.email_domain,
					businesses.phone, businesses.website, businesses.website_domain, businesses.vertical,
					businesses.categories, businesses.street, businesses.city, businesses.state, businesses.zip,
					businesses.lat, businesses.lng, businesses.source, businesses.gap_score, businesses.quality,
					businesses.search, businesses.listed_at)
				IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.owner_name, EXCLUDED.email, EXCLUDED.email_domain,
					EXCLUDED.phone, EXCLUDED.website, EXCLUDED.website_domain, EXCLUDED.vertical,
					EXCLUDED.categories, EXCLUDED.street, EXCLUDED.city, EXCLUDED.state, EXCLUDED.zip,
					EXCLUDED.lat, EXCLUDED.lng, EXCLUDED.source, EXCLUDED.gap_score, EXCLUDED.quality,
					EXCLUDED.search, EXCLUDED.listed_at)
			RETURNING xmax = 0`,
			extIDs, names, owners, emails, emailDomains, phones, websites, webDomains, verticals, categories,
			streets, cities, states, zips, lats, lngs, sources, gaps, qualities, listed, categorySep)
		if err != nil {
			return fmt.Errorf("upsert businesses: %w", err)
		}
		fresh, err := pgx.CollectRows(rows, pgx.RowTo[bool])
		if err != nil {
			return fmt.Errorf("upsert businesses: %w", err)
		}
		if _, err := tx.Exec(ctx, "UPDATE catalog_version SET version = version + 1"); err != nil {
			return fmt.Errorf("bump catalog version: %w", err)
		}
		for _, isInsert := range fresh {
			if isInsert {
				inserted++
			}
		}
		// Rows left as they were return nothing; every row of bs that was not inserted met its
		// external id (a chunk's ids are distinct) and counts as updated, as before.
		updated = n - inserted
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
