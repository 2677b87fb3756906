// Package idempotency makes a retried POST safe (docs/decisions.md, "Idempotency-Key"): the first
// request carrying an Idempotency-Key runs and its successful answer is stored; a retry with the
// same key and the same request gets that answer again, marked Idempotent-Replayed, without a
// second effect. The same key with another request is 409, and so is a retry while the first is
// still running. An answer holding a secret shown only once (ShownOnce) is kept without it, and a
// retry gets a 409 with the rest instead of the secret again. Keys are per caller (an account's
// keys never meet another's) and live for the configured TTL in the service's own schema.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/pgkit"
)

const (
	// Header is the request header a client names a retryable request with.
	Header = "Idempotency-Key"
	// ReplayedHeader marks an answer that was stored, not computed again.
	ReplayedHeader = "Idempotent-Replayed"
	// MaxKeyLength bounds a key; a UUID or a ULID fits many times over.
	MaxKeyLength = 255
	// maxStoredBody is the largest answer kept; the routes that take keys answer far less.
	maxStoredBody = 1 << 20
	// maxFingerprintedBody bounds what is read to fingerprint a request; the handler's own,
	// smaller limit still refuses a body over it.
	maxFingerprintedBody = 4 << 20
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations creates the idempotent_requests table; platform.Runtime.Migrate applies it to every
// service's schema.
var Migrations = pgkit.EmbeddedSource("idempotency", migrationFiles, "migrations")

// Config sets how long keys live and how long a running first request holds its key.
type Config struct {
	// TTL is how long a key and its answer are kept; a key reused after it starts afresh.
	TTL time.Duration `env:"IDEMPOTENCY_KEY_TTL" envDefault:"168h"`
	// Lease is how long a claim protects a first request that has not answered; past it (the
	// process died mid-request) a retry runs the request again. Above the write timeout.
	Lease time.Duration `env:"IDEMPOTENCY_LEASE" envDefault:"1m"`
}

// Validate refuses settings under which a retry could run while the first request still might.
func (c Config) Validate() error {
	if c.TTL < time.Minute {
		return fmt.Errorf("IDEMPOTENCY_KEY_TTL must be at least 1m, not %s", c.TTL)
	}
	if c.Lease < time.Second || c.Lease >= c.TTL {
		return fmt.Errorf("IDEMPOTENCY_LEASE must be from 1s to below IDEMPOTENCY_KEY_TTL, not %s", c.Lease)
	}
	return nil
}

// Keys stores the keys of one service.
type Keys struct {
	pool *pgxpool.Pool
	cfg  Config
}

func New(pool *pgxpool.Pool, cfg Config) *Keys { return &Keys{pool: pool, cfg: cfg} }

// Middleware makes next idempotent for requests that carry the header; others pass through. It
// must run after authentication: the caller's account scopes the key.
func (k *Keys) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(Header)
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		if err := validKey(key); err != nil {
			httpx.Fail(w, r, err)
			return
		}
		caller, err := authjwt.RequireCaller(r.Context())
		if err != nil {
			httpx.Fail(w, r, err)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxFingerprintedBody+1))
		if err != nil {
			httpx.Fail(w, r, apperr.Invalid(apperr.CodeMalformedJSON, "request body could not be read"))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		scope, fp := caller.AccountID, fingerprint(r, body)
		secrets := new([]string)
		r = r.WithContext(context.WithValue(r.Context(), shownOnceKey{}, secrets))

		claimed, err := k.claim(r.Context(), scope, key, fp)
		if err != nil {
			httpx.Fail(w, r, err)
			return
		}
		if !claimed {
			k.answerStored(w, r, scope, key, fp)
			return
		}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			// Record or release even when the client has gone: the effect, if any, happened.
			ctx := context.WithoutCancel(r.Context())
			if rec.status >= 200 && rec.status < 300 && !rec.overflow {
				err = k.store(ctx, scope, key, rec, *secrets)
			} else {
				// Every refusal leaves nothing written, so the key may run again.
				err = k.release(ctx, scope, key)
			}
			if err != nil {
				// The answer was sent; a retry within the lease is 409, after it runs again.
				slog.ErrorContext(r.Context(), "idempotency key not recorded", "key", key, "error", err)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

func validKey(key string) error {
	if len(key) > MaxKeyLength {
		return apperr.InvalidField(Header, fmt.Sprintf("must be at most %d characters", MaxKeyLength))
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] > '~' {
			return apperr.InvalidField(Header, "must be visible ASCII characters without spaces")
		}
	}
	return nil
}

// fingerprint is what "the same request" means: the method, the path with its query, and the body.
func fingerprint(r *http.Request, body []byte) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", r.Method, r.URL.RequestURI())
	h.Write(body)
	return h.Sum(nil)
}

// claim takes the key for this request in one statement: a new key, an expired one, or the same
// request's claim whose lease ran out (its process died) is taken; anything else is not.
func (k *Keys) claim(ctx context.Context, scope, key string, fp []byte) (bool, error) {
	var claimed bool
	err := k.pool.QueryRow(ctx, `INSERT INTO idempotent_requests AS k (scope, key, fingerprint, locked_until)
		VALUES ($1, $2, $3, now() + $4::interval)
		ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, locked_until = EXCLUDED.locked_until,
			created_at = now(), status = NULL, content_type = NULL, body = NULL
		WHERE k.created_at < now() - $5::interval
			OR (k.status IS NULL AND k.locked_until < now() AND k.fingerprint = EXCLUDED.fingerprint)
		RETURNING true`, scope, key, fp, k.cfg.Lease, k.cfg.TTL).Scan(&claimed)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim idempotency key: %w", err)
	}
	return claimed, nil
}

// ShownOnce marks members of the answer being written as secrets shown only once (an API key, a
// signing secret): the answer says Cache-Control: no-store, and the copy kept for its
// Idempotency-Key leaves them out. (no-store alone cannot be the mark: every API answer has it.)
func ShownOnce(w http.ResponseWriter, r *http.Request, members ...string) {
	w.Header().Set("Cache-Control", "no-store")
	if secrets, ok := r.Context().Value(shownOnceKey{}).(*[]string); ok {
		*secrets = append(*secrets, members...)
	}
}

type shownOnceKey struct{}

// answerStored answers a request whose key is held: the stored answer for the same request (or,
// when it held a secret, a 409 with the rest of it), 409 for another request or while the first
// still runs.
func (k *Keys) answerStored(w http.ResponseWriter, r *http.Request, scope, key string, fp []byte) {
	var (
		storedFP    []byte
		status      *int
		contentType *string
		body        []byte
		withheld    *[]string
	)
	err := k.pool.QueryRow(r.Context(), `SELECT fingerprint, status, content_type, body, withheld FROM idempotent_requests
		WHERE scope = $1 AND key = $2`, scope, key).Scan(&storedFP, &status, &contentType, &body, &withheld)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		// Released between the claim and this read: the first request was refused; so retry.
		httpx.Fail(w, r, inProgress())
	case err != nil:
		httpx.Fail(w, r, fmt.Errorf("read idempotency key: %w", err))
	case !bytes.Equal(storedFP, fp):
		httpx.Fail(w, r, &apperr.Error{Kind: apperr.KindConflict, Code: "idempotency_key_reused", Field: Header,
			Message: "Idempotency-Key was already used for a different request; use a new key for a new request"})
	case status == nil:
		httpx.Fail(w, r, inProgress())
	case withheld != nil:
		w.Header().Set("Cache-Control", "no-store")
		httpx.Fail(w, r, secretWithheld(*withheld, body))
	default:
		if contentType != nil {
			w.Header().Set("Content-Type", *contentType)
		}
		w.Header().Set(ReplayedHeader, "true")
		w.WriteHeader(*status)
		_, _ = w.Write(body)
	}
}

func inProgress() error {
	return (&apperr.Error{Kind: apperr.KindConflict, Code: "idempotency_key_in_progress", Field: Header,
		Message: "a request with this Idempotency-Key is still running; retry in a moment"}).With("retryAfter", 1)
}

// secretWithheld is the answer to a retry whose first answer held a secret: the members left out
// and the rest of that answer, which says what was made.
func secretWithheld(members []string, rest []byte) error {
	e := (&apperr.Error{Kind: apperr.KindConflict, Code: "idempotency_secret_withheld", Field: Header,
		Message: "the request with this Idempotency-Key already succeeded, and its answer held a secret that is shown only once: " +
			"answer is that answer without it; if the secret was lost, replace what was made under a new Idempotency-Key"}).
		With("withheld", members)
	if len(rest) > 0 {
		e = e.With("answer", json.RawMessage(rest))
	}
	return e
}

// store keeps the answer of the key's first request, without the secrets ShownOnce named.
func (k *Keys) store(ctx context.Context, scope, key string, rec *recorder, secrets []string) error {
	body, withheld := rec.body.Bytes(), []string(nil)
	if len(secrets) > 0 {
		body, withheld = withhold(body, secrets)
	}
	_, err := k.pool.Exec(ctx, `UPDATE idempotent_requests SET status = $3, content_type = $4, body = $5, withheld = $6
		WHERE scope = $1 AND key = $2`, scope, key, rec.status, rec.Header().Get("Content-Type"), body, withheld)
	return err
}

// withhold returns the JSON object body without members, and the members withheld; an answer
// that is not a JSON object is withheld whole (no body).
func withhold(body []byte, members []string) ([]byte, []string) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return nil, members
	}
	for _, m := range members {
		delete(obj, m)
	}
	rest, err := json.Marshal(obj)
	if err != nil {
		return nil, members
	}
	return rest, members
}

func (k *Keys) release(ctx context.Context, scope, key string) error {
	_, err := k.pool.Exec(ctx, `DELETE FROM idempotent_requests WHERE scope = $1 AND key = $2 AND status IS NULL`, scope, key)
	return err
}

// Sweep deletes keys past their TTL; platform runs it periodically.
func (k *Keys) Sweep(ctx context.Context) error {
	_, err := k.pool.Exec(ctx, `DELETE FROM idempotent_requests WHERE created_at < now() - $1::interval`, k.cfg.TTL)
	return err
}

// recorder passes the answer through and keeps a copy of it.
type recorder struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	overflow bool
	wrote    bool
}

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wrote = true
	if r.body.Len()+len(p) > maxStoredBody {
		r.overflow = true
	} else {
		r.body.Write(p)
	}
	return r.ResponseWriter.Write(p)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
