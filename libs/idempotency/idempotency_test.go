package idempotency_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/idempotency"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
)

// effects is a route with a side effect: each run counts one and answers the count, the way a
// spending or creating route answers what it did.
type effects struct {
	n       atomic.Int64
	status  int
	entered chan struct{} // when set, a run says it has begun
	release chan struct{} // when set, a run waits for it (a slow first request)
}

func (e *effects) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := httpx.Decode(w, r, &body, 1024); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if e.entered != nil {
		e.entered <- struct{}{}
	}
	if e.release != nil {
		<-e.release
	}
	if e.status >= 400 {
		w.WriteHeader(e.status)
		return
	}
	httpx.Respond(w, http.StatusCreated, map[string]any{"run": e.n.Add(1)})
}

type server struct {
	*httptest.Server
	route *effects
	pool  *pgxpool.Pool
}

func newServer(t *testing.T, cfg idempotency.Config) *server {
	t.Helper()
	route := &effects{}
	s := newServerWith(t, cfg, route)
	s.route = route
	return s
}

// newServerWith serves route behind the middleware.
func newServerWith(t *testing.T, cfg idempotency.Config, route http.Handler) *server {
	t.Helper()
	pool := pgtest.New(t, "idem", idempotency.Migrations)
	keys := idempotency.New(pool, cfg)
	// The account comes from the X-Account header here; in a service, from the token. Every
	// answer says no-store, as behind platform's router.
	h := httpx.SecurityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := authjwt.WithCaller(r.Context(), authjwt.Caller{AccountID: r.Header.Get("X-Account")})
		keys.Middleware(route).ServeHTTP(w, r.WithContext(ctx))
	}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &server{Server: srv, pool: pool}
}

var defaults = idempotency.Config{TTL: 24 * time.Hour, Lease: time.Minute}

type answer struct {
	status   int
	body     map[string]any
	replayed string
}

func (s *server) post(t *testing.T, account, key, body string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/api/things", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Account", account)
	if key != "" {
		req.Header.Set(idempotency.Header, key)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	a := answer{status: res.StatusCode, replayed: res.Header.Get(idempotency.ReplayedHeader)}
	if len(raw) > 0 {
		require.NoError(t, json.Unmarshal(raw, &a.body), string(raw))
	}
	return a
}

func TestARetryWithTheSameKeyGetsTheFirstAnswerWithoutASecondEffect(t *testing.T) {
	t.Parallel()
	s := newServer(t, defaults)
	first := s.post(t, "acc_a", "k-1", `{"n":1}`)
	require.Equal(t, http.StatusCreated, first.status)
	require.Empty(t, first.replayed)

	again := s.post(t, "acc_a", "k-1", `{"n":1}`)
	require.Equal(t, http.StatusCreated, again.status)
	require.Equal(t, first.body, again.body)
	require.Equal(t, "true", again.replayed)
	require.Equal(t, int64(1), s.route.n.Load(), "one effect for two requests")

	require.Equal(t, float64(2), s.post(t, "acc_a", "", `{"n":1}`).body["run"], "no key, no idempotency")
	require.Equal(t, float64(3), s.post(t, "acc_b", "k-1", `{"n":1}`).body["run"], "keys are per account")
}

func TestTheSameKeyForAnotherRequestIs409(t *testing.T) {
	t.Parallel()
	s := newServer(t, defaults)
	require.Equal(t, http.StatusCreated, s.post(t, "acc_a", "k-1", `{"n":1}`).status)
	other := s.post(t, "acc_a", "k-1", `{"n":2}`)
	require.Equal(t, http.StatusConflict, other.status)
	require.Equal(t, "idempotency_key_reused", other.body["code"])
	require.Equal(t, idempotency.Header, other.body["field"])
	require.Equal(t, int64(1), s.route.n.Load())
}

func TestARefusedRequestLeavesTheKeyFree(t *testing.T) {
	t.Parallel()
	s := newServer(t, defaults)
	bad := s.post(t, "acc_a", "k-1", `{"n":`)
	require.Equal(t, http.StatusBadRequest, bad.status)
	s.route.status = http.StatusServiceUnavailable
	require.Equal(t, http.StatusServiceUnavailable, s.post(t, "acc_a", "k-1", `{"n":1}`).status)
	s.route.status = 0
	ok := s.post(t, "acc_a", "k-1", `{"n":1}`)
	require.Equal(t, http.StatusCreated, ok.status, "a refusal did nothing, so the same key runs again")
	require.Empty(t, ok.replayed)
}

func TestConcurrentRetriesRunOnce(t *testing.T) {
	t.Parallel()
	s := newServer(t, defaults)
	s.route.entered, s.route.release = make(chan struct{}, 1), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		require.Equal(t, http.StatusCreated, s.post(t, "acc_a", "k-1", `{"n":1}`).status)
	}()
	// The first request holds the key until released; a retry meanwhile is told to wait.
	<-s.route.entered
	for range 3 {
		a := s.post(t, "acc_a", "k-1", `{"n":1}`)
		require.Equal(t, http.StatusConflict, a.status)
		require.Equal(t, "idempotency_key_in_progress", a.body["code"])
	}
	close(s.route.release)
	wg.Wait()
	require.Equal(t, "true", s.post(t, "acc_a", "k-1", `{"n":1}`).replayed)
	require.Equal(t, int64(1), s.route.n.Load())
}

// A process that died mid-request leaves its claim; once the lease is over the retry runs.
func TestAnAbandonedClaimIsTakenOverAfterItsLease(t *testing.T) {
	t.Parallel()
	s := newServer(t, defaults)
	_, err := s.pool.Exec(context.Background(), `INSERT INTO idempotent_requests (scope, key, fingerprint, locked_until)
		VALUES ('acc_a', 'k-1', '\x00', now() + interval '1 minute'), ('acc_a', 'k-2', $1, now() - interval '1 second')`,
		fingerprintOf(`{"n":1}`))
	require.NoError(t, err)
	require.Equal(t, http.StatusConflict, s.post(t, "acc_a", "k-1", `{"n":1}`).status, "another request's live claim")
	taken := s.post(t, "acc_a", "k-2", `{"n":1}`)
	require.Equal(t, http.StatusCreated, taken.status)
	require.Empty(t, taken.replayed)
}

// fingerprintOf is the fingerprint the middleware takes of a POST /api/things with body.
func fingerprintOf(body string) []byte {
	h := sha256.Sum256([]byte("POST /api/things\n" + body))
	return h[:]
}

func TestBadKeysAreRefusedByName(t *testing.T) {
	t.Parallel()
	s := newServer(t, defaults)
	for _, key := range []string{strings.Repeat("k", idempotency.MaxKeyLength+1), "has space", "tab\tkey"} {
		a := s.post(t, "acc_a", key, `{"n":1}`)
		require.Equal(t, http.StatusBadRequest, a.status, key)
		require.Equal(t, idempotency.Header, a.body["field"], key)
	}
	require.Zero(t, s.route.n.Load())
}

func TestConfigRefusesALeaseThatOutlivesTheKey(t *testing.T) {
	t.Parallel()
	require.NoError(t, defaults.Validate())
	require.Error(t, idempotency.Config{TTL: time.Hour, Lease: 2 * time.Hour}.Validate())
	require.Error(t, idempotency.Config{TTL: time.Second, Lease: time.Second}.Validate())
}

// secretRoute makes a thing with a secret shown once, the way POST /api/keys does.
func secretRoute() http.HandlerFunc {
	var n atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		id := fmt.Sprintf("thing_%d", n.Add(1))
		idempotency.ShownOnce(w, r, "secret")
		httpx.Respond(w, http.StatusCreated, map[string]any{"id": id, "secret": "sk_" + id + "_abc"})
	}
}

func TestAReplayNeverShowsASecretShownOnce(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, defaults, secretRoute())
	first := s.post(t, "acc_a", "k-1", `{"n":1}`)
	require.Equal(t, http.StatusCreated, first.status)
	require.Equal(t, "sk_thing_1_abc", first.body["secret"])

	again := s.post(t, "acc_a", "k-1", `{"n":1}`)
	require.Equal(t, http.StatusConflict, again.status, again.body)
	require.Equal(t, "idempotency_secret_withheld", again.body["code"])
	require.Equal(t, idempotency.Header, again.body["field"])
	require.NotContains(t, fmt.Sprint(again.body), "sk_thing_1_abc")
	require.Equal(t, []any{"secret"}, again.body["withheld"])
	require.Equal(t, map[string]any{"ok": true, "id": "thing_1"}, again.body["answer"], "the rest says what was made")
	var leaked int
	require.NoError(t, s.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM idempotent_requests WHERE position('sk_'::bytea IN body) > 0`).Scan(&leaked))
	require.Zero(t, leaked, "the secret is not stored")
	require.Equal(t, http.StatusConflict, s.post(t, "acc_a", "k-1", `{"n":2}`).status, "another request is still refused")
	require.Equal(t, http.StatusCreated, s.post(t, "acc_a", "k-2", `{"n":1}`).status, "a new key makes another")
}

// Answers stored before secrets were withheld held them in full: the migration withholds them.
func TestMigrationWithholdsSecretsStoredBefore(t *testing.T) {
	t.Parallel()
	first, err := fs.ReadFile(idempotency.Migrations.FS, "001_idempotent_requests.sql")
	require.NoError(t, err)
	pool := pgtest.New(t, "idem", pgkit.Source{Name: idempotency.Migrations.Name,
		FS: fstest.MapFS{"001_idempotent_requests.sql": {Data: first}}})
	ctx := context.Background()
	_, err = pool.Exec(ctx, `INSERT INTO idempotent_requests (scope, key, fingerprint, status, content_type, body, locked_until)
		VALUES ('acc_a', 'key', '\x00', 201, 'application/json', '{"id":"apk_1","key":"bza_abc","ok":true}', now()),
			('acc_a', 'plain', '\x00', 200, 'application/json', '{"eventId":"evt_1","ok":true}', now())`)
	require.NoError(t, err)
	require.NoError(t, pgkit.Migrate(ctx, pool, "idem", idempotency.Migrations))

	var withheld []string
	var body []byte
	require.NoError(t, pool.QueryRow(ctx, `SELECT withheld, body FROM idempotent_requests WHERE key = 'key'`).Scan(&withheld, &body))
	require.Equal(t, []string{}, withheld)
	require.Nil(t, body)
	require.NoError(t, pool.QueryRow(ctx, `SELECT withheld, body FROM idempotent_requests WHERE key = 'plain'`).Scan(&withheld, &body))
	require.Nil(t, withheld, "an answer without a secret is replayed as before")
	require.JSONEq(t, `{"eventId":"evt_1","ok":true}`, string(body))
}
