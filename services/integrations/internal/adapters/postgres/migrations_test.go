package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/migrations"
)

// migratedBefore is a fresh schema with the integrations migrations older than version applied;
// upgrade applies the rest, as a deployment of the new code does.
func migratedBefore(t *testing.T, version string) (pool *pgxpool.Pool, upgrade func()) {
	t.Helper()
	older := pgtest.Before(t, migrations.Source.FS, version)
	pool = pgtest.New(t, "integrations", pgkit.Source{Name: "integrations", FS: older}, events.Migrations)
	return pool, func() {
		require.NoError(t, pgkit.Migrate(context.Background(), pool, "integrations",
			migrations.Source, events.Migrations))
	}
}

// column returns the one text column sql selects.
func column(t *testing.T, pool *pgxpool.Pool, sql string) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return got
}

func exec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	_, err := pool.Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

// storedSub is a subscriptions row as an earlier version wrote it.
type storedSub struct{ id, account, event, url, status, created string }

// insertSubs writes subs and a pending delivery, msg_1, to the one named queued.
func insertSubs(t *testing.T, pool *pgxpool.Pool, subs []storedSub, queued string) {
	t.Helper()
	for _, s := range subs {
		exec(t, pool, `INSERT INTO subscriptions (id, account_id, event, hook_url, secret, status, created_at) VALUES ($1, $2, $3, $4, 's', $5, $6)`,
			s.id, s.account, s.event, s.url, s.status, s.created)
	}
	exec(t, pool, `INSERT INTO deliveries (id, subscription_id, event, payload, status) VALUES ('msg_1', $1, 'new_lead', '{}', 'pending')`, queued)
}

// Attempts logged before errors were made generic lose the addresses they carried.
func TestOldAttemptErrorsAreRewrittenInGenericWords(t *testing.T) {
	t.Parallel()
	pool, upgrade := migratedBefore(t, "002")
	exec(t, pool, `INSERT INTO subscriptions (id, account_id, event, hook_url, secret, status) VALUES ('hook_1', 'acc_1', 'new_lead', 'https://h.example/x', 's', 'active')`)
	exec(t, pool, `INSERT INTO deliveries (id, subscription_id, event, payload, status) VALUES ('msg_1', 'hook_1', 'new_lead', '{}', 'failed')`)
	old := map[string]string{
		`receiver answered 503`: "HTTP 503",
		`Post "https://h.example/x": dial tcp 10.1.2.3:443: 10.1.2.3: address is not a public unicast address`:                      "address not allowed",
		`Post "https://h.example/x": dial tcp 203.0.113.5:443: connect: connection refused`:                                         "connection refused",
		`Post "https://h.example/x": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`:                    "timeout",
		`Post "https://h.example/x": tls: failed to verify certificate: x509: certificate is valid for internal.svc, not h.example`: "TLS error",
		`Post "https://h.example/x": dial tcp: lookup h.example on 10.96.0.10:53: no such host`:                                     "host not found",
		`Post "https://h.example/x": redirects are not followed (to http://10.0.0.1/admin)`:                                         "redirect not followed",
		`Post "https://h.example/x": read tcp 10.244.1.7:51234->93.184.215.14:443: read: connection reset by peer`:                  "connection failed",
	}
	for text := range old {
		exec(t, pool, `INSERT INTO delivery_attempts (delivery_id, subscription_id, latency_ms, error) VALUES ('msg_1', 'hook_1', 1, $1)`, text)
	}
	exec(t, pool, `INSERT INTO delivery_attempts (delivery_id, subscription_id, latency_ms, status_code) VALUES ('msg_1', 'hook_1', 1, 200)`)
	upgrade()

	got := column(t, pool, `SELECT error FROM delivery_attempts WHERE error IS NOT NULL`)
	var want []string
	for _, w := range old {
		want = append(want, w)
	}
	require.ElementsMatch(t, want, got)
	for _, e := range got {
		require.False(t, strings.ContainsAny(e, ".:"), "%q still looks like it names an address", e)
	}
}

// Duplicate subscriptions made before (account, event, URL) was unique are folded into one: the
// oldest active one stays, so a working integration keeps receiving exactly one copy.
func TestDuplicateSubscriptionsAreFoldedIntoTheOldest(t *testing.T) {
	t.Parallel()
	pool, upgrade := migratedBefore(t, "003")
	insertSubs(t, pool, []storedSub{
		{"hook_a1", "acc_1", "new_lead", "https://a.example/x", "active", "2026-01-01"},
		{"hook_a2", "acc_1", "new_lead", "https://a.example/x", "active", "2026-01-02"},
		{"hook_a3", "acc_1", "new_lead", "https://a.example/x", "active", "2026-01-03"},
		{"hook_b1", "acc_1", "new_lead", "https://b.example/x", "disabled", "2026-01-01"},
		{"hook_b2", "acc_1", "new_lead", "https://b.example/x", "active", "2026-01-05"},
		{"hook_c1", "acc_1", "invoice.paid", "https://a.example/x", "active", "2026-01-04"},
		{"hook_d1", "acc_2", "new_lead", "https://a.example/x", "active", "2026-01-06"},
	}, "hook_a2")
	upgrade()

	require.Equal(t, []string{"hook_a1", "hook_b2", "hook_c1", "hook_d1"}, column(t, pool, `SELECT id FROM subscriptions ORDER BY id`))

	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM deliveries`).Scan(&n))
	require.Zero(t, n, "a folded duplicate's queued copies go with it")
	_, err := pool.Exec(context.Background(), `INSERT INTO subscriptions (id, account_id, event, hook_url, secret, status) VALUES ('hook_a4', 'acc_1', 'new_lead', 'https://a.example/x', 's', 'active')`)
	require.ErrorContains(t, err, "duplicate key", "the database itself refuses a second copy")
}

// Hook URLs stored as written before subscribe canonicalized them are rewritten at migrate, and
// spellings of one target are folded into the oldest active subscription.
func TestStoredHookURLsAreCanonicalizedAndTheirCopiesFolded(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "integrations", migrations.Source, events.Migrations)
	insertSubs(t, pool, []storedSub{
		{"hook_a1", "acc_1", "new_lead", "https://HOOKS.example.com:443/in/./x?", "disabled", "2026-01-01"},
		{"hook_a2", "acc_1", "new_lead", "https://hooks.example.com/in/x", "active", "2026-01-02"},
		{"hook_a3", "acc_1", "new_lead", "https://hooks.example.com/in/y/../x", "active", "2026-01-03"},
		{"hook_b1", "acc_1", "invoice.paid", "https://Hooks.Example.com/in/x", "active", "2026-01-04"},
		{"hook_c1", "acc_2", "new_lead", "https://hooks.example.com:8443/in/x", "active", "2026-01-05"},
		{"hook_d1", "acc_2", "new_lead", "not a url at all", "active", "2026-01-06"},
	}, "hook_a3")
	store := postgres.NewSubscriptions(pool, sealboxtest.New(t), pgkit.PrimaryReads(pool))

	n, err := store.CanonicalizeHookURLs(context.Background())
	require.NoError(t, err)
	require.Equal(t, 3, n, "a1 and a3 folded into a2, b1 rewritten")
	require.Equal(t, []string{
		"hook_a2 https://hooks.example.com/in/x",
		"hook_b1 https://hooks.example.com/in/x",
		"hook_c1 https://hooks.example.com:8443/in/x",
		"hook_d1 not a url at all",
	}, column(t, pool, `SELECT id || ' ' || hook_url FROM subscriptions ORDER BY id`))
	require.Empty(t, column(t, pool, `SELECT id FROM deliveries`), "a folded copy's queued deliveries go with it")

	n, err = store.CanonicalizeHookURLs(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "a second run changes nothing")
}

// Records stored before copies were refused by an index: the newest record without a key of each
// body within the window refuses copies from then on; older ones, and keyed ones, do not.
func TestInboxRecordsWithinTheWindowRefuseCopiesAfterTheUpgrade(t *testing.T) {
	t.Parallel()
	pool, upgrade := migratedBefore(t, "006")
	exec(t, pool, `INSERT INTO accounts (id, email, role) VALUES ('acc_1', 'a@example.com', 'owner')`)
	records := []struct {
		id, key string
		hash    byte
		age     string
	}{
		{"svc_old", "", 1, "30 hours"},
		{"svc_recent", "", 1, "2 hours"},
		{"svc_keyed", "k-1", 1, "1 hour"},
		{"svc_other", "", 2, "3 hours"},
		{"svc_stale", "", 3, "25 hours"},
	}
	for _, r := range records {
		exec(t, pool, `INSERT INTO inbox (id, account_id, event, fields, idempotency_key, body_hash, received_at)
			VALUES ($1, 'acc_1', 'new_lead', '{}', NULLIF($2, ''), $3, now() - $4::interval)`, r.id, r.key, []byte{r.hash}, r.age)
	}
	upgrade()

	require.Equal(t, []string{"svc_other", "svc_recent"}, column(t, pool, `SELECT id FROM inbox WHERE dedupes_body ORDER BY id`))
	_, err := pool.Exec(context.Background(), `INSERT INTO inbox (id, account_id, event, fields, body_hash, dedupes_body)
		VALUES ('svc_copy', 'acc_1', 'new_lead', '{}', $1, true)`, []byte{1})
	require.ErrorContains(t, err, "inbox_body_copies", "the database itself refuses a copy")
}
